import type { Next } from 'koa'
import type { SessionUser, Sessions } from '../auth/sessions.js'
import { TokenError } from '../auth/signed-token.js'
import { HttpError } from './http-error.js'
import type { ShelfContext } from './request-state.js'

/**
 * Who is asking: the user of the `{Name}-Session` header. A session that is present but expired
 * or not ours is refused with 401 even where a guest may read, since 401 is what makes the app
 * sign in again rather than go on as someone it no longer is. When server.yaml says
 * `requireAuthentication`, a guest is refused too.
 */
export const sessionUser =
    (sessions: Sessions, header: string) => async (ctx: ShelfContext, next: Next) => {
        const view = ctx.state.shelf
        const session = ctx.get(header)
        if (session) {
            try {
                view.user = sessions.user(session)
            } catch (error) {
                if (!(error instanceof TokenError)) throw error
                throw new HttpError(401, `the session ${error.message}: sign in again`)
            }
        } else if (view.catalog.settings.requireAuthentication) {
            throw new HttpError(401, 'this server is for signed-in players: sign in first')
        }
        await next()
    }

/** The signed-in user, for what a guest may not do. */
export const signedInUser = (ctx: ShelfContext): SessionUser => {
    const user = ctx.state.shelf.user
    if (!user) throw new HttpError(401, 'sign in first')
    return user
}
