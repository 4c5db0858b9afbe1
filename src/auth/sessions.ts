import type { ServerAuthenticateResponse, ServiceUserProfile } from '@sonolus/core'
import type { TokenSigner } from './signed-token.js'

/** Who a session belongs to: the stable id, and the names to show and record. */
export type SessionUser = { id: string; handle: string; name: string }

type SessionPayload = { id: string; handle: string; name: string; exp: number }

/** The name a player is shown by in the app: `name#handle`. */
export const displayName = (user: SessionUser) => `${user.name}#${user.handle}`

/** Sessions are signed tokens, so any replica holding the secret accepts them without a store. */
export class Sessions {
    constructor(
        private readonly signer: TokenSigner,
        private readonly lifetimeMs: number,
    ) {}

    open(profile: ServiceUserProfile, now = Date.now()): ServerAuthenticateResponse {
        const expiration = now + this.lifetimeMs
        const payload: SessionPayload = {
            id: profile.id,
            handle: profile.handle,
            name: profile.name,
            exp: expiration,
        }
        return { session: this.signer.sign('session', payload), expiration }
    }

    /** The user of a session, or a TokenError saying why the session is refused. */
    user(session: string, now = Date.now()): SessionUser {
        const { id, handle, name } = this.signer.verify<SessionPayload>('session', session, now)
        return { id, handle, name }
    }
}
