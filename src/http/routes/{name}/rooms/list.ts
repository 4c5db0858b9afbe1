import type { RoomItem, ServerItemList } from '@sonolus/core'
import { roomList } from '../../../../answers/rooms.js'
import type { Multiplayer } from '../../../multiplayer.js'
import type { ShelfHandler } from '../../../request-state.js'
import { respond } from '../../../respond.js'

/** E9 `GET /{name}/rooms/list`: the rooms open now, never kept (see rooms/info.ts). */
export const getRoomList =
    (multiplayer: Multiplayer | undefined): ShelfHandler =>
    (ctx) => {
        ctx.set('Cache-Control', 'no-store')
        respond<ServerItemList<RoomItem>>(
            ctx,
            roomList(ctx.state.shelf, multiplayer?.rooms.list() ?? []),
        )
    }
