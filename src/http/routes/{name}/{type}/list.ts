import type { ServerItemList } from '@sonolus/core'
import { itemList } from '../../../../answers/item-list.js'
import { protocolTypeParam } from '../../../path-params.js'
import type { ShelfHandler } from '../../../request-state.js'
import { respondWithItems } from '../../../respond.js'

/** E9 `GET /{name}/{type}/list`: a page of a type's list, searched as the query says. */
export const getItemList: ShelfHandler = (ctx) => {
    const { rest, itemsJson } = itemList(ctx.state.shelf, protocolTypeParam(ctx))
    respondWithItems<ServerItemList<unknown>>(ctx, rest, itemsJson)
}
