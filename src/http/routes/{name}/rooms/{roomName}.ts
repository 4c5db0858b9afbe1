import type { RoomItem, ServerItemDetails, ServerJoinRoomResponse } from '@sonolus/core'
import { renderRoomDetails } from '../../../../answers/render-room.js'
import type { Auth } from '../../../../auth/auth.js'
import type { ProtocolHeaders } from '../../../../config.js'
import { roomSession } from '../../../../rooms/room-session.js'
import { roomCreateForms, roomSettingsFrom } from '../../../../rooms/room-settings.js'
import { notFound } from '../../../http-error.js'
import { parseJsonBytes, readJsonBytes } from '../../../json-body.js'
import { offeredMultiplayer, type Multiplayer } from '../../../multiplayer.js'
import type { ShelfHandler } from '../../../request-state.js'
import { respond } from '../../../respond.js'

/** E12 `GET /{name}/rooms/{roomName}`: a room's details, never kept (see rooms/info.ts). */
export const getRoom =
    (multiplayer: Multiplayer | undefined): ShelfHandler =>
    (ctx) => {
        const name = String(ctx.params.roomName)
        const room =
            multiplayer?.rooms.get(name) ?? notFound(`room "${name}" not found: it may have ended`)
        ctx.set('Cache-Control', 'no-store')
        respond<ServerItemDetails<RoomItem>>(ctx, renderRoomDetails(room, ctx.state.shelf.renderer))
    }

/**
 * E7 `POST /{name}/rooms/{roomName}`: a signed join. With the room key of E6, it opens the room
 * with the settings of the create form in the query.
 */
export const postRoomJoin =
    (multiplayer: Multiplayer | undefined, auth: Auth, headers: ProtocolHeaders): ShelfHandler =>
    async (ctx) => {
        const { rooms, url } = offeredMultiplayer(multiplayer)
        const view = ctx.state.shelf
        const name = String(ctx.params.roomName)
        const raw = await readJsonBytes(ctx)
        const join = await auth.verifier.verify(
            raw,
            parseJsonBytes(raw),
            ctx.get(headers.signature) || undefined,
            { type: 'authenticateMultiplayer', room: name },
        )
        const { id, handle, name: userName } = join.body.userProfile
        const key = ctx.get(headers.roomKey)
        const room = key
            ? rooms.open(name, key, { id, handle, name: userName }, () =>
                  roomSettingsFrom(
                      roomCreateForms(view.catalog.settings.types.room.creates),
                      view.query,
                  ),
              )
            : rooms.join(name)
        respond<ServerJoinRoomResponse>(ctx, {
            url,
            type: 'round',
            session: roomSession(auth.signer, room, join, key !== ''),
        })
    }
