import type { Context, Next } from 'koa'
import type { Sessions } from '../auth/sessions.js'

/**
 * Before a signed-in player's request is answered, this replica catches up with that player's
 * last write (made on any replica), so the answer includes it. A session that does not decode is
 * left to the session check, which refuses it.
 */
export const readYourWrites =
    (sessions: Sessions, headers: readonly string[], catchUp: (userId: string) => Promise<void>) =>
    async (ctx: Context, next: Next) => {
        // The session comes under whichever protocol name the client speaks.
        const session = headers.map((header) => ctx.get(header)).find(Boolean)
        const userId = session ? userOf(sessions, session) : undefined
        if (userId) await catchUp(userId)
        await next()
    }

const userOf = (sessions: Sessions, session: string) => {
    try {
        return sessions.user(session).id
    } catch {
        return undefined
    }
}
