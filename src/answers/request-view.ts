import type { SessionUser } from '../auth/sessions.js'
import type { Catalog } from '../catalog/catalog.js'
import { optionFilter, type ItemFilter } from '../catalog/search.js'
import type { ShelfOptions } from '../config.js'
import { decodeOption, type FormInput } from '../content/form-values.js'
import type { ContentType } from '../content/item-types.js'
import { refuse } from '../util/refusal.js'
import { ItemRenderer } from './render-item.js'

/** What answering one request reads, fixed when the request arrives. */
export type RequestView = {
    /** The snapshot this request reads from start to end, even if a reload swaps in another. */
    catalog: Catalog
    renderer: ItemRenderer
    query: FormInput
    /** Whether search forms and the configuration are offered: not by a static export. */
    searchable: boolean
    /** Filters the player's configuration options apply to lists of each type. */
    configurationFilters(type: ContentType): ItemFilter[]
    /** The player's configuration values, as a key for answers kept by what they are of. */
    configurationKey: string
    /** The signed-in player, once the session header is checked; a guest has none. */
    user?: SessionUser
}

/** What the HTTP edge reads off a request to make its view. */
export type ViewRequest = {
    /** The locale asked for: the protocol's `localization`, or the one a web page chose. */
    locale: string
    /** The public address written into every item's `source`: --address, else the request's origin. */
    source: string
    /** The query parameters, a repeated key by its first value. */
    query: FormInput
}

const renderersPerCatalog = new WeakMap<Catalog, Map<string, ItemRenderer>>()
/** Sources come from the Host header when no address is set: bound what a client can make us keep. */
const maxRenderersPerCatalog = 32

/** The view of one request in the locale asked for. */
export const createRequestView = (
    catalog: Catalog,
    options: Pick<ShelfOptions, 'name' | 'staticExport'>,
    request: ViewRequest,
): RequestView => {
    const query = options.staticExport ? staticQuery(request.query) : request.query
    // Locales no text is written in all render alike, so they share the fallback's renderer.
    const locale = catalog.locales.has(request.locale)
        ? request.locale
        : catalog.settings.fallbackLocale
    const configuration = catalog.settings.configuration.map((option) => ({
        option,
        value: decodeOption(option, query),
    }))
    return {
        catalog,
        renderer: rendererFor(catalog, locale, request.source, `/${options.name}/repository`),
        query,
        searchable: !options.staticExport,
        configurationFilters: (type) =>
            configuration
                .filter(({ option }) => (option.types ?? ['levels']).includes(`${type}s`))
                .map(({ option, value }) => optionFilter(option, value))
                .filter((filter): filter is ItemFilter => filter !== undefined),
        configurationKey: JSON.stringify(configuration.map(({ value }) => value)),
    }
}

const rendererFor = (catalog: Catalog, locale: string, source: string, repositoryPath: string) => {
    let renderers = renderersPerCatalog.get(catalog)
    if (!renderers) {
        renderers = new Map()
        renderersPerCatalog.set(catalog, renderers)
    }
    const key = `${locale}\n${source}\n${repositoryPath}`
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

/** The parameters a static host can tell apart (see the nginx.conf `shelf export` writes). */
const staticKeys = new Set(['localization', 'page', 'cursor'])

/**
 * A static copy answers by path and page alone: a search or configuration value would be ignored
 * there, so it is ignored here too; keywords would get the plain list, so they are refused.
 */
const staticQuery = (query: FormInput): FormInput => {
    if (query.get('keywords')) refuse('not-found', quickSearchRefusal)
    return { get: (key) => (staticKeys.has(key) ? query.get(key) : undefined) }
}

/** The answer a static export gives to a quick search, written into its nginx.conf too. */
export const quickSearchRefusal = 'search is not offered by this static copy of the server'
