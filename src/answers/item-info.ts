import type { ServerItemInfo, ServerItemSection } from '@sonolus/core'
import type { CatalogItem } from '../catalog/catalog.js'
import { isContentType, type ContentType, type ProtocolType } from '../content/item-types.js'
import { offeredSearches, renderForms } from './forms.js'
import { readItemQuery, selectItems } from './item-query.js'
import type { RequestView } from './request-view.js'
import { declaredSectionText, renderSection } from './sections.js'

/** E8: a type's landing page, with its create forms when players may write. */
export const itemInfo = (
    view: RequestView,
    type: ProtocolType,
    writable: boolean,
): ServerItemInfo => {
    const settings = view.catalog.settings.types[type]
    return {
        title: view.renderer.optionalText(settings.title),
        creates:
            writable && isContentType(type)
                ? renderForms(settings.creates, view.renderer)
                : undefined,
        searches: offeredSearches(view, settings.searches),
        sections: isContentType(type) ? sections(view, type) : [],
    }
}

/** The built-in "Newest" strip, then the sections server.yaml declares. */
const sections = (view: RequestView, type: ContentType): ServerItemSection[] => {
    const { catalog } = view
    const settings = catalog.settings.types[type]
    const filters = view.configurationFilters(type)
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
            view,
            type,
            items.slice(0, section.limit),
            declaredSectionText(view, section),
        )
    })
    const newestSection = renderSection(view, type, newest, {
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
