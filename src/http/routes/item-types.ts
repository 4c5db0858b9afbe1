import type Router from '@koa/router'
import type { ServerItemInfo, ServerItemList, ServerItemSection } from '@sonolus/core'
import type { CatalogItem } from '../../catalog/catalog.js'
import type { FormDeclaration } from '../../content/server-settings.js'
import { isContentType, type ContentType } from '../../content/item-types.js'
import { renderForms } from '../../answers/forms.js'
import { readItemQuery, selectItems } from '../../answers/item-query.js'
import { pageSizes, paginate } from '../../answers/pagination.js'
import type { RequestState, ShelfContext } from '../request-state.js'
import { protocolTypeParam, respond, respondWithItems } from '../respond.js'
import { declaredSectionText, renderSection } from '../../answers/sections.js'

/** E8 and E9: a type's landing page (with its create forms when players may write) and its searchable list. */
export const itemTypeRoutes = (router: Router, writable: boolean) => {
    router.get('/:type/info', (ctx) => {
        const type = protocolTypeParam(ctx)
        const state = (ctx as ShelfContext).state.shelf
        const settings = state.catalog.settings.types[type]
        respond<ServerItemInfo>(ctx, {
            title: state.renderer.optionalText(settings.title),
            creates:
                writable && isContentType(type)
                    ? renderForms(settings.creates, state.renderer)
                    : undefined,
            searches: searchesOf(state, settings.searches),
            sections: isContentType(type) ? sections(state, type) : [],
        })
    })

    router.get('/:type/list', (ctx) => {
        const type = protocolTypeParam(ctx)
        const state = (ctx as ShelfContext).state.shelf
        const settings = state.catalog.settings.types[type]
        const items = isContentType(type)
            ? selectItems(
                  state.catalog,
                  type,
                  readItemQuery(settings, state.query),
                  state.configurationFilters(type),
              )
            : []
        const page = paginate(
            items,
            pageSizes.items,
            state.query,
            settings.paging,
            (item) => item.name,
        )
        respondWithItems<ServerItemList<unknown>>(
            ctx,
            {
                title: state.renderer.optionalText(settings.title),
                pageCount: page.pageCount,
                cursor: page.cursor,
                searches: searchesOf(state, settings.searches),
            },
            page.items.map((item) => state.renderer.itemJson(item)),
        )
    })
}

/** A static export offers no search forms: it could not answer them. */
const searchesOf = (state: RequestState, searches: readonly FormDeclaration[]) =>
    state.searchable ? renderForms(searches, state.renderer) : []

/** The built-in "Newest" strip, then the sections server.yaml declares. */
const sections = (state: RequestState, type: ContentType): ServerItemSection[] => {
    const { catalog } = state
    const settings = catalog.settings.types[type]
    const filters = state.configurationFilters(type)
    const newest = selectItems(catalog, type, { keywords: '', filters: [] }, filters)
    const declared = settings.sections.map((section) => {
        const items = section.items
            ? section.items
                  .map((name) => catalog.get(type, name))
                  .filter(
                      (item): item is CatalogItem =>
                          item !== undefined && filters.every((filter) => filter(item)),
                  )
            : selectItems(
                  catalog,
                  type,
                  readItemQuery(settings, searchInput(section.search)),
                  filters,
              )
        return renderSection(
            state,
            type,
            items.slice(0, section.limit),
            declaredSectionText(state, section),
        )
    })
    const newestSection = renderSection(state, type, newest, {
        title: '#NEWEST',
        icon: 'clock',
        searchValues: 'type=quick',
    })
    return [
        ...(newest.length ? [newestSection] : []),
        ...declared.filter((section) => section.items.length),
    ]
}

const searchInput = (values: string | undefined) => {
    const params = new URLSearchParams(values ?? '')
    return { get: (key: string) => params.get(key) ?? undefined }
}
