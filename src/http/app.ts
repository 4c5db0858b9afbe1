import Router from '@koa/router'
import { version } from '@sonolus/core'
import Koa, { type Context, type Next } from 'koa'
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Catalog } from '../catalog/catalog.js'
import { protocolHeaders, type ShelfOptions } from '../config.js'
import { encodeAnswers } from './encode-answers.js'
import { isClientGone, reportError } from './error-log.js'
import { emptyNotFoundForBrowsers } from './browser-not-found.js'
import { HttpError } from './http-error.js'
import { Refusal, type RefusalKind } from '../util/refusal.js'
import { PreparedAnswers } from './prepared-answers.js'
import { requestState, type ShelfState } from './request-state.js'
import { cachedResponses } from './response-cache.js'
import { routeTable, type Route, type Services } from './route-table.js'
import { webClient } from '../web/web-client.js'
import { sessionUser } from './session.js'

/**
 * The HTTP side: the routes of route-table.ts, under `/{name}` for the protocol, reading whichever
 * catalog snapshot is current when a request arrives; a guest's repeated GET is answered before
 * the app from the answer it got the first time.
 */
export const createApp = (
    getCatalog: () => Catalog,
    options: ShelfOptions,
    { auth, multiplayer, writes, live, containment, git }: Services,
) => {
    const app = new Koa()
    // Errors after the answer began (a stream cut short): Koa's own handler prints every one with a stack.
    app.on('error', (error: unknown, ctx?: Context) =>
        reportError(error, ctx && `${ctx.method} ${ctx.url}`),
    )
    const headers = protocolHeaders(options.name)
    const prepared = new PreparedAnswers(getCatalog, headers.session.toLowerCase())
    // `shelf export` asks for each answer once: keeping (and compressing) them would be work for nothing.
    const keep = options.keepAnswers !== false
    if (keep) app.use(prepared.keep)
    app.use(emptyNotFoundForBrowsers(`/${options.name}`))
    app.use(errorsAsJson)
    app.use(versionHeader(headers.version))
    // Text answers in the encoding asked for, each with its ETag and 304; resources as stored.
    app.use(encodeAnswers)

    const routes = routeTable({
        getCatalog,
        options,
        headers,
        auth,
        multiplayer,
        writes,
        live,
        containment,
        git,
    })
    // Routes that never look at the session: sign-in itself, and resources (see route-table.ts).
    const sessionless = new Router<ShelfState>({ prefix: `/${options.name}` })
    sessionless.use(requestState(getCatalog, options))
    register(sessionless, routes.sessionless)

    const router = new Router<ShelfState>({ prefix: `/${options.name}` })
    router.use(requestState(getCatalog, options))
    if (auth.signInEnabled) router.use(sessionUser(auth.sessions, headers.session))
    if (keep) router.use(cachedResponses)
    register(router, routes.protocol)
    app.use(sessionless.routes())
    app.use(router.routes())
    app.use(register(new Router(), routes.development).routes())
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
    else if (options.web !== false) app.use(register(new Router(), routes.pages).routes())
    app.use(notFoundAsJson)
    const handle = app.callback()
    return (req: IncomingMessage, res: ServerResponse) => {
        if (!prepared.answer(req, res)) void handle(req, res)
    }
}

/** Adds the routes of a table in its order, which is the order they are tried in. */
const register = <StateT extends object>(router: Router<StateT>, routes: Route<StateT>[]) => {
    for (const { method, path, handler } of routes) router[method](path, handler)
    return router
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
                status < 500
                    ? (error as Error).message
                    : 'internal error: the server log has the details',
        })
        if (error instanceof Refusal && error.retryAfterSeconds !== undefined)
            ctx.set('Retry-After', String(error.retryAfterSeconds))
        if (status >= 500) reportError(error, `${ctx.method} ${ctx.url}`)
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
