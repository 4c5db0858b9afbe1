import type { RoomUser } from '@sonolus/core'
import type { SessionUser } from '../auth/sessions.js'
import type { VerifiedRequest } from '../auth/signed-request.js'
import type { TokenSigner } from '../auth/signed-token.js'
import type { Room } from './room-registry.js'

/**
 * What the multiplayer server learns from a join's `session` (the app sends it back in
 * `{Name}-Room-Session`): the room and how it was set up, who joins, and the signed join request
 * itself (`RoomUser`), so that it can check the app's signature on its own. The format and how
 * to verify it are in docs/multiplayer.md.
 */
export type RoomSessionPayload = {
    room: string
    /** The creator's first join, which sets the room up with `values`. */
    creating: boolean
    /** The create form's values (`type=<form>&<query>=<value>…`), as the app encodes forms. */
    values: string
    user: SessionUser
    master: SessionUser
    roomUser: RoomUser
    exp: number
}

/** The app opens the WebSocket right after joining; the token need not outlive that. */
const lifetimeMs = 10 * 60_000

export const roomSessionPurpose = 'room'

export const roomSession = (
    signer: TokenSigner,
    room: Room,
    join: VerifiedRequest,
    creating: boolean,
    now = Date.now(),
) => {
    const { id, handle, name } = join.body.userProfile
    const payload: RoomSessionPayload = {
        room: room.name,
        creating,
        values: room.values,
        user: { id, handle, name },
        master: room.master,
        roomUser: { authentication: join.raw.toString('base64'), signature: join.signature },
        exp: now + lifetimeMs,
    }
    return signer.sign(roomSessionPurpose, payload)
}
