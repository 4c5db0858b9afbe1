import Router from '@koa/router'
import { version } from '@sonolus/core'
import Koa, { type Context, type Next } from 'koa'
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Auth } from '../auth/auth.js'
import type { Catalog } from '../catalog/catalog.js'
import type { Containment } from '../content/containment.js'
import type { ContentGit } from '../git/content-git.js'
import { protocolHeaders, type ShelfOptions } from '../config.js'
import { encodeAnswers } from './encode-answers.js'
import { isClientGone, reportError } from './error-log.js'
import { emptyNotFoundForBrowsers } from './browser-not-found.js'
import { HttpError } from './http-error.js'
import { Refusal, type RefusalKind } from '../util/refusal.js'
import { PreparedAnswers } from './prepared-answers.js'
import { readYourWrites } from './read-your-writes.js'
import { requestState } from './request-state.js'
import { drainUnreadBody } from './unread-body.js'
import { cachedResponses } from './response-cache.js'
import { authenticateRoutes } from './routes/authenticate.js'
import { communityActionRoutes } from './routes/community-actions.js'
import { communityRoutes } from './routes/community.js'
import { createRoutes } from './routes/create.js'
import { developmentRoutes } from './routes/development.js'
import { gitWebhookRoutes } from './routes/git-webhook.js'
import { itemActionRoutes } from './routes/item-actions.js'
import { itemDetailsRoutes } from './routes/item-details.js'
import { itemTypeRoutes } from './routes/item-types.js'
import { leaderboardRoutes } from './routes/leaderboards.js'
import { levelResultRoutes } from './routes/level-result.js'
import { repositoryRoutes } from './routes/repository.js'
import { roomRoutes, type Multiplayer } from './routes/rooms.js'
import { serverInfoRoutes } from './routes/server-info.js'
import { webPageRoutes } from './routes/web-pages.js'
import type { LivePreview } from '../web/live-preview.js'
import { webClient } from '../web/web-client.js'
import { sessionUser } from './session.js'
import type { Writes } from './submissions.js'

/** What the routes serve besides the catalog; `writes` is absent on a read-only server, `git` without --git. */
export type Services = {
    auth: Auth
    multiplayer?: Multiplayer
    writes?: Writes & { contentRoot: string }
    /** The live preview of the web pages, while the folder is watched. */
    live?: LivePreview
    containment: Containment
    git?: ContentGit
}

/**
 * The HTTP side: thin routes mirroring the protocol's URL tree under `/{name}`, reading whichever
 * catalog snapshot is current when a request arrives; a guest's repeated GET is answered before
 * the app from the answer it got the first time.
 */
export const createApp = (
    getCatalog: () => Catalog,
    options: ShelfOptions,
    { auth, multiplayer, writes, live, containment, git }: Services,
) => {
    const app = new Koa()
    // Behind a proxy the client's address is the last one the proxy added, never one the client sent.
    if (options.trustProxy) Object.assign(app, { proxy: true, maxIpsCount: 1 })
    // Errors after the answer began (a stream cut short): Koa's own handler prints every one with a stack.
    app.on('error', (error: unknown, ctx?: Context) =>
        reportError(error, ctx && `${ctx.method} ${ctx.url}`),
    )
    const headers = protocolHeaders(options.name)
    const prepared = new PreparedAnswers(getCatalog, headers.session.toLowerCase())
    // `shelf export` asks for each answer once: keeping (and compressing) them would be work for nothing.
    const keep = options.keepAnswers !== false
    if (keep) app.use(prepared.keep)
    app.use(drainUnreadBody)
    app.use(emptyNotFoundForBrowsers(`/${options.name}`))
    app.use(errorsAsJson)
    app.use(versionHeader(headers.version))
    // Text answers in the encoding asked for, each with its ETag and 304; resources as stored.
    app.use(encodeAnswers)
    if (git?.catchUp && auth.signInEnabled)
        app.use(readYourWrites(auth.sessions, headers.session, git.catchUp))

    // Routes that never look at the session: sign-in itself, which a stale session must not stop,
    // and resources, which are named by their hash and fetched without the app's headers.
    const sessionless = new Router({ prefix: `/${options.name}` })
    sessionless.use(requestState(getCatalog, options))
    repositoryRoutes(sessionless, containment)
    authenticateRoutes(sessionless, auth, headers)

    const router = new Router({ prefix: `/${options.name}` })
    router.use(requestState(getCatalog, options))
    if (auth.signInEnabled) router.use(sessionUser(auth.sessions, headers.session))
    if (keep) router.use(cachedResponses)
    // Fixed paths first: they would otherwise be taken for item names.
    serverInfoRoutes(router, { signIn: auth.signInEnabled, rooms: multiplayer !== undefined })
    levelResultRoutes(router, writes)
    roomRoutes(router, multiplayer, auth, headers)
    if (writes) {
        createRoutes(router, writes)
        itemActionRoutes(router, writes, writes.contentRoot)
        communityActionRoutes(router, writes)
    }
    itemTypeRoutes(router, writes !== undefined)
    itemDetailsRoutes(router, writes !== undefined)
    communityRoutes(router, writes !== undefined)
    leaderboardRoutes(router)
    app.use(sessionless.routes())
    app.use(router.routes())
    app.use(developmentRoutes(getCatalog, options, git?.problems))
    if (git) app.use(gitWebhookRoutes(git))
    if (options.webClient)
        app.use(
            webClient(
                options.webClient,
                (path) =>
                    path === `/${options.name}` ||
                    path.startsWith(`/${options.name}/`) ||
                    path.startsWith('/_shelf/'),
            ),
        )
    else if (options.web !== false)
        app.use(webPageRoutes(getCatalog, options, live, writes !== undefined))
    app.use(notFoundAsJson)
    const handle = app.callback()
    return (req: IncomingMessage, res: ServerResponse) => {
        if (!prepared.answer(req, res)) void handle(req, res)
    }
}

const versionHeader = (header: string) => async (ctx: Context, next: Next) => {
    ctx.set(header, version.sonolus)
    await next()
}

const errorsAsJson = async (ctx: Context, next: Next) => {
    try {
        await next()
    } catch (error) {
        if (isClientGone(error)) {
            reportError(error, `${ctx.method} ${ctx.url}`)
            ctx.respond = false
            return
        }
        const status = statusOf(error)
        ctx.status = status
        ctx.type = 'application/json; charset=utf-8'
        ctx.body = JSON.stringify({
            message:
                status < 500 || error instanceof Refusal
                    ? (error as Error).message
                    : 'internal error: the server log has the details',
        })
        if (error instanceof Refusal && error.retryAfterSeconds !== undefined)
            ctx.set('Retry-After', String(error.retryAfterSeconds))
        if (status >= 500 && !(error instanceof Refusal))
            reportError(error, `${ctx.method} ${ctx.url}`)
    }
}

/** The status of each kind of refusal a domain folder raises. */
const refusalStatus: Record<RefusalKind, number> = {
    invalid: 400,
    unauthorized: 401,
    forbidden: 403,
    'not-found': 404,
    conflict: 409,
    'too-large': 413,
    'too-many': 429,
    unavailable: 503,
}

const statusOf = (error: unknown) => {
    if (error instanceof HttpError) return error.status
    if (error instanceof Refusal) return refusalStatus[error.kind]
    // Errors raised by Koa and its middleware (a malformed body, say) carry their own client status.
    const status = (error as { status?: unknown }).status
    return typeof status === 'number' && status >= 400 && status < 500 ? status : 500
}

const notFoundAsJson = (ctx: Context) => {
    if (ctx.body !== undefined || ctx.respond === false) return
    ctx.status = 404
    ctx.type = 'application/json; charset=utf-8'
    ctx.body = JSON.stringify({ message: `nothing at ${ctx.method} ${ctx.path}` })
}
