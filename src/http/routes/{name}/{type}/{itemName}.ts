import type { ServerItemDetails } from '@sonolus/core'
import { itemDetails } from '../../../../answers/item-details.js'
import type { AnyItem } from '../../../../answers/render-item.js'
import { itemParam } from '../../../path-params.js'
import type { ShelfHandler } from '../../../request-state.js'
import { respond } from '../../../respond.js'

/** E12 `GET /{name}/{type}/{itemName}`: one item's page. */
export const getItemDetails =
    (writable: boolean): ShelfHandler =>
    (ctx) =>
        respond<ServerItemDetails<AnyItem>>(
            ctx,
            itemDetails(ctx.state.shelf, itemParam(ctx), writable),
        )
