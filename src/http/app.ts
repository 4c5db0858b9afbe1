import Router from '@koa/router'
import { version } from '@sonolus/core'
import Koa, { type Context, type Next } from 'koa'
import compress from 'koa-compress'
import conditional from 'koa-conditional-get'
import etag from '@koa/etag'
import type { Catalog } from '../catalog/catalog.js'
import { headerPrefix, type ShelfOptions } from '../config.js'
import { FormValueError } from './forms.js'
import { HttpError } from './http-error.js'
import { requestState } from './request-state.js'
import { cachedResponses } from './response-cache.js'
import { communityRoutes } from './routes/community.js'
import { developmentRoutes } from './routes/development.js'
import { itemDetailsRoutes } from './routes/item-details.js'
import { itemTypeRoutes } from './routes/item-types.js'
import { leaderboardRoutes } from './routes/leaderboards.js'
import { levelResultRoutes } from './routes/level-result.js'
import { repositoryRoutes } from './routes/repository.js'
import { serverInfoRoutes } from './routes/server-info.js'

/**
 * The HTTP side: thin routes mirroring the protocol's URL tree under `/{name}`, reading whichever
 * catalog snapshot is current when a request arrives.
 */
export const createApp = (getCatalog: () => Catalog, options: ShelfOptions) => {
    const app = new Koa()
    app.use(errorsAsJson)
    app.use(versionHeader(options.name))
    // Only JSON is compressed: resources are sent as stored, and gzip resources are gzip already.
    app.use(compress({ filter: (type) => type.startsWith('application/json'), threshold: 1024 }))
    app.use(conditional())
    app.use(etag())

    const router = new Router({ prefix: `/${options.name}` })
    router.use(requestState(getCatalog, options))
    router.use(cachedResponses)
    // Fixed paths first: they would otherwise be taken for item names.
    repositoryRoutes(router)
    serverInfoRoutes(router)
    levelResultRoutes(router)
    itemTypeRoutes(router)
    itemDetailsRoutes(router)
    communityRoutes(router)
    leaderboardRoutes(router)
    app.use(router.routes())
    app.use(developmentRoutes(getCatalog))
    app.use(notFoundAsJson)
    return app
}

const versionHeader = (name: string) => async (ctx: Context, next: Next) => {
    ctx.set(`${headerPrefix(name)}-Version`, version.sonolus)
    await next()
}

const errorsAsJson = async (ctx: Context, next: Next) => {
    try {
        await next()
    } catch (error) {
        const status = statusOf(error)
        ctx.status = status
        ctx.type = 'application/json; charset=utf-8'
        ctx.body = JSON.stringify({ message: status < 500 ? (error as Error).message : 'internal error: the server log has the details' })
        if (status >= 500) console.error(error)
    }
}

const statusOf = (error: unknown) => {
    if (error instanceof HttpError) return error.status
    if (error instanceof FormValueError) return 400
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
