import type { ServerItemInfo } from '@sonolus/core'
import { itemInfo } from '../../../../answers/item-info.js'
import { protocolTypeParam } from '../../../path-params.js'
import type { ShelfHandler } from '../../../request-state.js'
import { respond } from '../../../respond.js'

/** E8 `GET /{name}/{type}/info`: a type's landing page, with its create forms when players may write. */
export const getItemInfo =
    (writable: boolean): ShelfHandler =>
    (ctx) =>
        respond<ServerItemInfo>(ctx, itemInfo(ctx.state.shelf, protocolTypeParam(ctx), writable))
