import Router from '@koa/router'
import type { Context } from 'koa'
import type { Catalog, CatalogItem } from '../../catalog/catalog.js'
import { typeFromPlural, isContentType, type ContentType } from '../../content/item-types.js'
import type { ShelfOptions } from '../../config.js'
import { assets, assetsPrefix } from '../../web/assets.js'
import { commentsPage, leaderboardPage } from '../../web/community-pages.js'
import { homePage } from '../../web/home-page.js'
import { itemPage } from '../../web/item-page.js'
import { listPage } from '../../web/list-page.js'
import type { LivePreview } from '../../web/live-preview.js'
import { chooseLocale, exportedLocale } from '../../web/locale.js'
import { basePathOf, pageRequest, type PageRequest } from '../../web/page-frame.js'
import { isOwnerRequest } from '../owner-access.js'
import { notFoundPage, problemsPage } from '../../web/problems-page.js'
import { phoneAddress } from '../../web/share.js'
import { FormValueError } from '../../content/form-values.js'
import { createRequestState } from '../request-state.js'
import { developmentPrefix } from './development.js'
import { immutableCacheControl } from './repository.js'

/** Where the live preview's events and the problems page are, while the folder is watched. */
const livePaths = {
    events: `${developmentPrefix}/live`,
    problems: `${developmentPrefix}/problems.html`,
}

/**
 * Pages for people at `/`: nothing is sent to the browser that could run but the one script file,
 * and no style but the stylesheet, whatever the content holds.
 */
export const contentSecurityPolicy = [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' https: http:",
    "media-src 'self' https: http:",
    "connect-src 'self'",
    "form-action 'self'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
].join('; ')

/** The headers of every page, live and exported alike. */
export const pageSecurityHeaders: [string, string][] = [
    ['Content-Security-Policy', contentSecurityPolicy],
    ['X-Content-Type-Options', 'nosniff'],
    ['Referrer-Policy', 'strict-origin-when-cross-origin'],
]

/**
 * The web pages, read from the catalog snapshot like the protocol's answers: each page is one
 * string body, so it gets its ETag, its 304 and its place among the kept answers on the same path.
 */
export const webPageRoutes = (
    getCatalog: () => Catalog,
    options: ShelfOptions,
    live: LivePreview | undefined,
    writable: boolean,
) => {
    const router = new Router()
    const basePath = basePathOf(options.address)

    const requestOf = (ctx: Context): PageRequest => {
        const catalog = getCatalog()
        const lang = ctx.query.lang
        const page = options.staticExport
            ? exportedLocale(catalog, options.exportLocale)
            : chooseLocale(
                  catalog,
                  Array.isArray(lang) ? lang[0] : lang,
                  ctx.get('Accept-Language'),
              )
        const source = options.address ?? `${ctx.protocol}://${ctx.host}`
        return pageRequest({
            catalog,
            state: createRequestState(ctx, catalog, options, page.locale),
            page,
            source,
            basePath,
            protocolName: options.name,
            live: live && {
                events: `${basePath}${livePaths.events}`,
                problems: `${basePath}${livePaths.problems}`,
            },
            phoneAddress: phoneAddress(options.address, source),
        })
    }

    /** Answers a page; a page that finds nothing to show falls through to the next route. */
    const page =
        (
            render: (
                request: PageRequest,
                ctx: Context,
            ) => Promise<string | undefined> | string | undefined,
        ) =>
        async (ctx: Context, next: () => Promise<unknown>) => {
            const request = requestOf(ctx)
            let html: string | undefined
            try {
                html = await render(request, ctx)
            } catch (error) {
                if (!(error instanceof FormValueError)) throw error
                ctx.status = 400
                html = notFoundPage(request, ctx.path, error.message)
            }
            if (html === undefined) return next()
            ctx.type = 'text/html; charset=utf-8'
            for (const [header, value] of pageSecurityHeaders) ctx.set(header, value)
            // Browsers ask again each time (answered 304 while the snapshot stays), so edits show at once.
            if (!ctx.response.get('Cache-Control')) ctx.set('Cache-Control', 'no-cache')
            if (request.page.negotiated) ctx.vary('Accept-Language')
            ctx.body = html
        }

    /** The content type named by a path's first segment, if it is one. */
    const typeOf = (ctx: Context): ContentType | undefined => {
        const type = typeFromPlural(String(ctx.params.type))
        return type && isContentType(type) ? type : undefined
    }
    /** The item a path names, in the snapshot the page is made from. */
    const itemOf = (request: PageRequest, ctx: Context) => {
        const type = typeOf(ctx)
        return type && request.catalog.get(type, String(ctx.params.itemName))
    }
    /** A missing item of a known type is a page of its own; any other path is not the pages' business. */
    const missing = (request: PageRequest, ctx: Context) => {
        if (!typeOf(ctx)) return undefined
        ctx.status = 404
        return notFoundPage(request, ctx.path)
    }
    const withItem = (
        render: (
            request: PageRequest,
            item: CatalogItem,
            ctx: Context,
        ) => Promise<string | undefined> | string | undefined,
    ) =>
        page((request, ctx) => {
            const item = itemOf(request, ctx)
            return item ? render(request, item, ctx) : missing(request, ctx)
        })

    router.get(
        '/',
        page((request) => homePage(request)),
    )
    router.get(
        '/:type/list',
        page((request, ctx) => {
            const type = typeOf(ctx)
            return type && listPage(request, type)
        }),
    )
    router.get(
        '/:type/:itemName',
        withItem((request, item) => itemPage(request, item, writable)),
    )
    router.get(
        '/:type/:itemName/community/comments/list',
        withItem((request, item) => commentsPage(request, item)),
    )
    router.get(
        '/:type/:itemName/leaderboards/:leaderboardName',
        withItem((request, item, ctx) => {
            const leaderboard = request.catalog
                .leaderboardsOf(item)
                .find((entry) => entry.name === ctx.params.leaderboardName)
            return leaderboard ? leaderboardPage(request, item, leaderboard) : missing(request, ctx)
        }),
    )

    router.get(`${assetsPrefix}/:file`, (ctx) => {
        const asset = assets[String(ctx.params.file)]
        if (!asset) return
        ctx.type = asset.type
        ctx.set('Cache-Control', ctx.query.v === asset.version ? immutableCacheControl : 'no-cache')
        ctx.body = asset.body
    })

    if (live) {
        router.get(
            livePaths.problems,
            page((request, ctx) => {
                // Kept for nobody: whether it shows the problems depends on who asks.
                ctx.set('Cache-Control', 'no-store')
                const allowed = isOwnerRequest(ctx.req, options)
                if (!allowed) ctx.status = 403
                return problemsPage(request, ctx.path, allowed)
            }),
        )
        router.get(livePaths.events, (ctx) => {
            ctx.req.socket.setTimeout(0)
            ctx.req.socket.setNoDelay(true)
            // An endless answer is written by the live preview itself, not by Koa.
            ctx.respond = false
            live.open(ctx.res)
        })
    }
    return router.routes()
}
