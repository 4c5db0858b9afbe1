import type { ServerItemLeaderboardDetails } from '@sonolus/core'
import { leaderboardDetails } from '../../../../../../answers/leaderboards.js'
import { leaderboardParam } from '../../../../../path-params.js'
import type { ShelfHandler } from '../../../../../request-state.js'
import { respondKept } from '../../../../../kept-answers.js'

/** E21 `GET /{name}/{type}/{itemName}/leaderboards/{leaderboardName}`: a leaderboard's top records. */
export const getLeaderboard: ShelfHandler = (ctx) =>
    respondKept<ServerItemLeaderboardDetails>(ctx, [], () =>
        leaderboardDetails(ctx.state.shelf, leaderboardParam(ctx)),
    )
