import type { ServerItemLeaderboardRecordList } from '@sonolus/core'
import { recordList } from '../../../../../../../../answers/leaderboards.js'
import { leaderboardParam } from '../../../../../../../path-params.js'
import type { ShelfHandler } from '../../../../../../../request-state.js'
import { respondKept } from '../../../../../../../kept-answers.js'

/** E22 `GET /{name}/{type}/{itemName}/leaderboards/{leaderboardName}/records/list`: a page of a leaderboard's records. */
export const getRecordList: ShelfHandler = (ctx) =>
    respondKept<ServerItemLeaderboardRecordList>(ctx, ['page'], () =>
        recordList(ctx.state.shelf, leaderboardParam(ctx)),
    )
