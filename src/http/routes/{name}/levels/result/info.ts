import type { ServerLevelResultInfo } from '@sonolus/core'
import { levelResultInfo } from '../../../../../answers/level-result-info.js'
import type { ShelfHandler } from '../../../../request-state.js'
import { respond } from '../../../../respond.js'

/** E3 `GET /{name}/levels/result/info`: the result screen's forms. */
export const getLevelResultInfo =
    (writable: boolean): ShelfHandler =>
    (ctx) =>
        respond<ServerLevelResultInfo>(ctx, levelResultInfo(ctx.state.shelf, writable))
