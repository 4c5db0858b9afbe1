import type { ServerCreateRoomResponse } from '@sonolus/core'
import type { Auth } from '../../../../auth/auth.js'
import { readJsonBytes } from '../../../json-body.js'
import { offeredMultiplayer, type Multiplayer } from '../../../multiplayer.js'
import type { ShelfHandler } from '../../../request-state.js'
import { respond } from '../../../respond.js'
import { signedInUser } from '../../../session.js'

/** E6 `POST /{name}/rooms/create`: a room's name and key, kept for its creator to join. */
export const postRoomCreate =
    (multiplayer: Multiplayer | undefined, auth: Auth): ShelfHandler =>
    async (ctx) => {
        const { rooms } = offeredMultiplayer(multiplayer)
        await readJsonBytes(ctx)
        // With sign-in on, a room is reserved for the player who asked, and only they can open it.
        const creator = auth.signInEnabled ? signedInUser(ctx) : undefined
        respond<ServerCreateRoomResponse>(ctx, rooms.reserve(creator))
    }
