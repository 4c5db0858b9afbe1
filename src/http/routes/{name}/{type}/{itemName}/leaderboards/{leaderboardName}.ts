import type { ServerItemLeaderboardDetails } from '@sonolus/core'
import { leaderboardDetails } from '../../../../../../answers/leaderboards.js'
import { leaderboardParam } from '../../../../../path-params.js'
import type { ShelfHandler } from '../../../../../request-state.js'
import { respond } from '../../../../../respond.js'

/** E21 `GET /{name}/{type}/{itemName}/leaderboards/{leaderboardName}`: a leaderboard's top records. */
export const getLeaderboard: ShelfHandler = (ctx) =>
    respond<ServerItemLeaderboardDetails>(ctx, leaderboardDetails(leaderboardParam(ctx)))
