import type { ServerItemInfo } from '@sonolus/core'
import { roomsInfo } from '../../../../answers/rooms.js'
import type { Multiplayer } from '../../../multiplayer.js'
import type { ShelfHandler } from '../../../request-state.js'
import { respond } from '../../../respond.js'

/**
 * E8 `GET /{name}/rooms/info`. Rooms live in memory rather than in the catalog, so their answers
 * are marked `no-store`: the response cache and the app both ask again.
 */
export const getRoomsInfo =
    (multiplayer: Multiplayer | undefined): ShelfHandler =>
    (ctx) => {
        ctx.set('Cache-Control', 'no-store')
        respond<ServerItemInfo>(
            ctx,
            roomsInfo(ctx.state.shelf, multiplayer?.rooms.list() ?? [], multiplayer !== undefined),
        )
    }
