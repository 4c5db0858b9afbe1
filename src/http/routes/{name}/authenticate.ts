import type { ServerAuthenticateResponse } from '@sonolus/core'
import type { Auth } from '../../../auth/auth.js'
import type { ProtocolHeaders } from '../../../config.js'
import { notFound } from '../../http-error.js'
import { parseJsonBytes, readJsonBytes } from '../../json-body.js'
import type { ShelfHandler } from '../../request-state.js'
import { respond } from '../../respond.js'

/** E2 `POST /{name}/authenticate`: a signed sign-in request from the app, answered with a session. */
export const postAuthenticate =
    (auth: Auth, headers: ProtocolHeaders): ShelfHandler =>
    async (ctx) => {
        if (!auth.signInEnabled)
            notFound('sign-in is not offered by this server (it runs with --no-sign-in)')
        const raw = await readJsonBytes(ctx)
        const { body } = await auth.verifier.verify(
            raw,
            parseJsonBytes(raw),
            ctx.get(headers.signature) || undefined,
            { type: 'authenticateServer' },
        )
        respond<ServerAuthenticateResponse>(ctx, auth.sessions.open(body.userProfile))
    }
