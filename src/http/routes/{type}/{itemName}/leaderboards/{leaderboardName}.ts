import { leaderboardPage } from '../../../../../web/community-pages.js'
import type { PageHandlers } from '../../../../page-handlers.js'

/** `GET /{type}/{itemName}/leaderboards/{leaderboardName}`: a leaderboard's records. */
export const getLeaderboardPage = (pages: PageHandlers) =>
    pages.withItem((request, item, ctx) => {
        const leaderboard = request.catalog
            .leaderboardsOf(item)
            .find((entry) => entry.name === ctx.params.leaderboardName)
        return leaderboard
            ? leaderboardPage(request, item, leaderboard)
            : pages.missing(request, ctx)
    })
