import type { ServerItemLeaderboardRecordDetails } from '@sonolus/core'
import { recordDetails } from '../../../../../../../../answers/leaderboards.js'
import { notFound } from '../../../../../../../http-error.js'
import { leaderboardParam } from '../../../../../../../path-params.js'
import type { ShelfHandler } from '../../../../../../../request-state.js'
import { respondKept } from '../../../../../../../kept-answers.js'

/** E23 `GET /{name}/{type}/{itemName}/leaderboards/{leaderboardName}/records/{recordName}`: the replays behind a record. */
export const getRecord: ShelfHandler = (ctx) => {
    const leaderboard = leaderboardParam(ctx)
    const name = String(ctx.params.recordName)
    respondKept<ServerItemLeaderboardRecordDetails>(
        ctx,
        [],
        () =>
            recordDetails(ctx.state.shelf, leaderboard, name) ??
            notFound(`record "${name}" not found in leaderboard "${leaderboard.name}"`),
    )
}
