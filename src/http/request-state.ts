import type { RouterContext, RouterMiddleware } from '@koa/router'
import type { Context, Next } from 'koa'
import { createRequestView, type RequestView } from '../answers/request-view.js'
import type { Catalog } from '../catalog/catalog.js'
import type { ShelfOptions } from '../config.js'
import type { FormInput } from '../content/form-values.js'

/** The state every protocol route finds on its context, set before the routes run. */
export type ShelfState = { shelf: RequestView }
/** The context of a protocol route: typed through the router, never cast. */
export type ShelfContext = RouterContext<ShelfState>
export type ShelfHandler = RouterMiddleware<ShelfState>

export const requestState =
    (getCatalog: () => Catalog, options: ShelfOptions) =>
    async (ctx: Context & { state: Partial<ShelfState> }, next: Next) => {
        const query = queryInput(ctx)
        ctx.state.shelf = requestViewOf(ctx, getCatalog(), options, query.get('localization') ?? '')
        await next()
    }

/** The view of one request in the locale asked for: the protocol's `localization`, or the one a web page chose. */
export const requestViewOf = (
    ctx: Context,
    catalog: Catalog,
    options: ShelfOptions,
    locale: string,
): RequestView =>
    createRequestView(catalog, options, {
        locale,
        source: options.address ?? `${ctx.protocol}://${ctx.host}`,
        query: queryInput(ctx),
    })

/** Query parameters as the protocol reads them: a repeated key counts by its first value. */
const queryInput = (ctx: Context): FormInput => {
    const query = ctx.query
    return {
        get: (key) => {
            const value = query[key]
            return Array.isArray(value) ? value[0] : value
        },
    }
}
