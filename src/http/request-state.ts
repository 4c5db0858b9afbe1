import type { Context, Next } from 'koa'
import type { Catalog } from '../catalog/catalog.js'
import { ItemRenderer } from '../answers/render-item.js'
import { optionFilter, type ItemFilter } from '../catalog/search.js'
import type { SessionUser } from '../auth/sessions.js'
import type { ContentType } from '../content/item-types.js'
import type { ShelfOptions } from '../config.js'
import { decodeOption, type FormInput } from '../content/form-values.js'
import { notFound } from './http-error.js'

/** What every handler needs to answer one request, fixed when the request arrives. */
export type RequestState = {
    /** The snapshot this request reads from start to end, even if a reload swaps in another. */
    catalog: Catalog
    renderer: ItemRenderer
    query: FormInput
    /** Whether search forms and the configuration are offered: not by a static export. */
    searchable: boolean
    /** Filters the player's configuration options apply to lists of each type. */
    configurationFilters(type: ContentType): ItemFilter[]
    /** The signed-in player, once the session header is checked; a guest has none. */
    user?: SessionUser
}

export type ShelfContext = Context & { state: { shelf: RequestState } }

const renderersPerCatalog = new WeakMap<Catalog, Map<string, ItemRenderer>>()
/** Sources come from the Host header when no address is set: bound what a client can make us keep. */
const maxRenderersPerCatalog = 32

export const requestState =
    (getCatalog: () => Catalog, options: ShelfOptions) => async (ctx: Context, next: Next) => {
        const query = queryInput(ctx)
        ctx.state.shelf = createRequestState(
            ctx,
            getCatalog(),
            options,
            query.get('localization') ?? '',
        )
        await next()
    }

/** The state of one request in the locale asked for: the protocol's `localization`, or the one a web page chose. */
export const createRequestState = (
    ctx: Context,
    catalog: Catalog,
    options: ShelfOptions,
    requested: string,
): RequestState => {
    const query = options.staticExport ? staticQuery(ctx) : queryInput(ctx)
    // Locales no text is written in all render alike, so they share the fallback's renderer.
    const locale = catalog.locales.has(requested) ? requested : catalog.settings.fallbackLocale
    const source = options.address ?? `${ctx.protocol}://${ctx.host}`
    const configuration = catalog.settings.configuration.map((option) => ({
        option,
        value: decodeOption(option, query),
    }))
    return {
        catalog,
        renderer: rendererFor(catalog, locale, source, `/${options.name}/repository`),
        query,
        searchable: !options.staticExport,
        configurationFilters: (type) =>
            configuration
                .filter(({ option }) => (option.types ?? ['levels']).includes(`${type}s`))
                .map(({ option, value }) => optionFilter(option, value))
                .filter((filter): filter is ItemFilter => filter !== undefined),
    }
}

const rendererFor = (catalog: Catalog, locale: string, source: string, repositoryPath: string) => {
    let renderers = renderersPerCatalog.get(catalog)
    if (!renderers) {
        renderers = new Map()
        renderersPerCatalog.set(catalog, renderers)
    }
    const key = `${locale}\n${source}`
    let renderer = renderers.get(key)
    if (!renderer) {
        if (renderers.size >= maxRenderersPerCatalog)
            renderers.delete(renderers.keys().next().value!)
        renderer = new ItemRenderer(
            catalog,
            locale,
            catalog.settings.fallbackLocale,
            source,
            repositoryPath,
        )
        renderers.set(key, renderer)
    }
    return renderer
}

/** Query parameters as the protocol reads them: a repeated key counts by its first value. */
const queryInput = (ctx: Context, keys?: ReadonlySet<string>): FormInput => {
    const query = ctx.query
    return {
        get: (key) => {
            const value = keys && !keys.has(key) ? undefined : query[key]
            return Array.isArray(value) ? value[0] : value
        },
    }
}

/** The parameters a static host can tell apart (see the nginx.conf `shelf export` writes). */
const staticKeys = new Set(['localization', 'page', 'cursor'])

/**
 * A static copy answers by path and page alone: a search or configuration value would be ignored
 * there, so it is ignored here too; keywords would get the plain list, so they are refused.
 */
const staticQuery = (ctx: Context): FormInput => {
    const keywords = queryInput(ctx).get('keywords')
    if (keywords) notFound(quickSearchRefusal)
    return queryInput(ctx, staticKeys)
}

/** The answer a static export gives to a quick search, written into its nginx.conf too. */
export const quickSearchRefusal = 'search is not offered by this static copy of the server'
