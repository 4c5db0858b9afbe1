import Router from '@koa/router'
import { version } from '@sonolus/core'
import Koa, { type Context, type Next } from 'koa'
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Catalog } from '../catalog/catalog.js'
import { protocolHeaders, protocolNames, type ShelfOptions } from '../config.js'
import { encodeAnswers } from './encode-answers.js'
import { isClientGone, reportError } from './error-log.js'
import { emptyNotFoundForBrowsers } from './browser-not-found.js'
import { HttpError } from './http-error.js'
import { Refusal, type RefusalKind } from '../util/refusal.js'
import { PreparedAnswers } from './prepared-answers.js'
import { readYourWrites } from './read-your-writes.js'
import { requestState, type ShelfState } from './request-state.js'
import { drainUnreadBody } from './unread-body.js'
import { cachedResponses } from './response-cache.js'
import { routeTable, type Route, type Services } from './route-table.js'
import { webClient } from '../web/web-client.js'
import { sessionUser } from './session.js'

/**
 * The HTTP side: the routes of route-table.ts, under every protocol name (`/sonolus`, `/service`
 * and a chosen one) for the protocol, reading whichever
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
    const names = protocolNames(options.name)
    const prepared = new PreparedAnswers(
        getCatalog,
        names.map((name) => protocolHeaders(name).session.toLowerCase()),
    )
    // `shelf export` asks for each answer once: keeping (and compressing) them would be work for nothing.
    const keep = options.keepAnswers !== false
    if (keep) app.use(prepared.keep)
    app.use(drainUnreadBody)
    app.use(emptyNotFoundForBrowsers(names.map((name) => `/${name}`)))
    app.use(errorsAsJson)
    app.use(versionHeader(names))
    // Text answers in the encoding asked for, each with its ETag and 304; resources as stored.
    app.use(encodeAnswers)
    if (git?.catchUp && auth.signInEnabled)
        app.use(
            readYourWrites(
                auth.sessions,
                names.map((name) => protocolHeaders(name).session),
                git.catchUp,
            ),
        )

    const services = { getCatalog, auth, multiplayer, live, containment, git }
    for (const name of names) {
        // Each name is the whole protocol with its own headers, and its answers link under it.
        const headers = protocolHeaders(name)
        const protocol = { ...options, name }
        const routes = routeTable({
            ...services,
            options: protocol,
            headers,
            writes: writes && { ...writes, uploadKeyHeader: headers.uploadKey },
        })
        // Routes that never look at the session: sign-in itself, and resources (see route-table.ts).
        const sessionless = new Router<ShelfState>({ prefix: `/${name}` })
        sessionless.use(requestState(getCatalog, protocol))
        register(sessionless, routes.sessionless)

        const router = new Router<ShelfState>({ prefix: `/${name}` })
        router.use(requestState(getCatalog, protocol))
        if (auth.signInEnabled) router.use(sessionUser(auth.sessions, headers.session))
        if (keep) router.use(cachedResponses)
        register(router, routes.protocol)
        app.use(sessionless.routes())
        app.use(router.routes())
    }
    const routes = routeTable({
        ...services,
        options,
        headers: protocolHeaders(options.name),
        writes,
    })
    app.use(register(new Router(), routes.development).routes())
    if (options.webClient)
        app.use(
            webClient(
                options.webClient,
                (path) =>
                    names.some((name) => path === `/${name}` || path.startsWith(`/${name}/`)) ||
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

/** The version under the header names of the protocol name a path is under; the chosen name's elsewhere (pages). */
const versionHeader = (names: string[]) => {
    const [chosen] = names as [string]
    return async (ctx: Context, next: Next) => {
        const name = names.find((candidate) => ctx.path.startsWith(`/${candidate}/`)) ?? chosen
        ctx.set(protocolHeaders(name).version, version.sonolus)
        await next()
    }
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
