import { leaderboardPage } from '../../../../../web/community-pages.js'
import type { PageRoutes } from '../../../../page-route.js'

/** `GET /{type}/{itemName}/leaderboards/{leaderboardName}`: a leaderboard's records. */
export const getLeaderboardPage = (pages: PageRoutes) =>
    pages.withItem((request, item, ctx) => {
        const leaderboard = request.catalog
            .leaderboardsOf(item)
            .find((entry) => entry.name === ctx.params.leaderboardName)
        return leaderboard
            ? leaderboardPage(request, item, leaderboard)
            : pages.missing(request, ctx)
    })
