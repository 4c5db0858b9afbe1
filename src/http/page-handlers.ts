import type { RouterMiddleware } from '@koa/router'
import type { Context } from 'koa'
import { pageSecurityHeaders } from '../answers/served-headers.js'
import type { Catalog, CatalogItem } from '../catalog/catalog.js'
import type { ShelfOptions } from '../config.js'
import { FormValueError } from '../content/form-values.js'
import { typeFromPlural, isContentType, type ContentType } from '../content/item-types.js'
import type { LivePreview } from '../web/live-preview.js'
import { chooseLocale, exportedLocale } from '../web/locale.js'
import { basePathOf, pageRequest, type PageRequest } from '../web/page-frame.js'
import { notFoundPage } from '../web/problems-page.js'
import { phoneAddress } from '../web/share.js'
import { Refusal } from '../util/refusal.js'
import { requestViewOf } from './request-state.js'

/** Where the live preview's events and the problems page are answered (see route-table.ts), while the folder is watched. */
const livePaths = {
    events: '/_shelf/live',
    problems: '/_shelf/problems.html',
}

export type PageServices = {
    getCatalog: () => Catalog
    options: ShelfOptions
    live?: LivePreview
}

type Render<Args extends unknown[]> = (
    request: PageRequest,
    ...args: Args
) => Promise<string | undefined> | string | undefined

/**
 * How the web pages are answered, read from the catalog snapshot like the protocol's answers:
 * each page is one string body, so it gets its ETag, its 304 and its place among the kept
 * answers on the same path.
 */
export const pageHandlers = ({ getCatalog, options, live }: PageServices) => {
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
            view: requestViewOf(ctx, catalog, options, page.locale),
            page,
            source,
            basePath,
            appOpens: !options.staticExport || options.name === 'sonolus',
            live: live && {
                events: `${basePath}${livePaths.events}`,
                problems: `${basePath}${livePaths.problems}`,
            },
            phoneAddress: phoneAddress(options.address, source),
        })
    }

    /** Answers a page; a page that finds nothing to show falls through to the next route. */
    const page =
        (render: Render<[ctx: Context]>): RouterMiddleware =>
        async (ctx, next) => {
            const request = requestOf(ctx)
            let html: string | undefined
            try {
                html = await render(request, ctx)
            } catch (error) {
                const status =
                    error instanceof FormValueError
                        ? 400
                        : error instanceof Refusal && error.kind === 'not-found'
                          ? 404
                          : undefined
                if (!status) throw error
                ctx.status = status
                html = notFoundPage(request, ctx.path, (error as Error).message)
            }
            if (html === undefined) return next()
            ctx.type = 'text/html; charset=utf-8'
            for (const [header, value] of pageSecurityHeaders) ctx.set(header, value)
            // Browsers ask again each time (answered 304 while the snapshot stays), so edits show at once.
            if (!ctx.response.get('Cache-Control')) ctx.set('Cache-Control', 'no-cache')
            if (request.page.negotiated) ctx.vary('Accept-Language')
            ctx.body = html
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
    /** Answers the page of the item a path names. */
    const withItem = (render: Render<[item: CatalogItem, ctx: Context]>) =>
        page((request, ctx) => {
            const item = itemOf(request, ctx)
            return item ? render(request, item, ctx) : missing(request, ctx)
        })
    return { page, withItem, missing, contentTypeOf: typeOf }
}

/** The content type named by a path's first segment, if it is one. */
const typeOf = (ctx: Context): ContentType | undefined => {
    const type = typeFromPlural(String(ctx.params.type))
    return type && isContentType(type) ? type : undefined
}

export type PageHandlers = ReturnType<typeof pageHandlers>
