import type { ContentType } from '../content/item-types.js'
import { readItemQuery, selectItems } from '../answers/item-query.js'
import { pageSizes, paginate, type Page } from '../answers/pagination.js'
import type { CatalogItem } from '../catalog/catalog.js'
import type { Sequence } from '../util/sequence.js'
import { itemCard } from './item-cards.js'
import { personList, type ListEntry } from './person-lists.js'
import { canonicalLink, layoutData, pageLink, type PageRequest } from './page-frame.js'
import { pager } from './pager.js'
import { renderTemplate } from './templates.js'
import { typeTitle } from './ui-text.js'

/**
 * A type's list as the app pages it (same page size, order and paging mode), with the app's
 * quick search; or the list of a person's items or records a section of their page leads to.
 */
export const listPage = (request: PageRequest, type: ContentType) => {
    const { catalog, view } = request
    const settings = catalog.settings.types[type]
    const personal = personList(request, type)
    const keywords = personal ? '' : (view.query.get('keywords') ?? '').slice(0, 200)
    const pageOf = <T>(list: Sequence<T>, nameOf: (entry: T) => string) =>
        paginate(list, pageSizes.items, view.query, settings.paging, nameOf)
    const page: Page<ListEntry> = personal
        ? pageOf(personal.entries, (entry) => entry.item.name)
        : entriesOf(
              pageOf(
                  selectItems(
                      catalog,
                      type,
                      quickSearch(settings, keywords),
                      view.configurationFilters(type),
                  ),
                  (item) => item.name,
              ),
          )
    const path = `/${type}s/list`
    const pageNumber = Number(view.query.get('page') ?? 0)
    const title =
        personal?.title ??
        view.renderer.optionalText(settings.title) ??
        typeTitle(type, request.page.locale)
    const listed = { keywords: keywords || undefined, ...personal?.params }
    const params = { ...listed, page: pageNumber || undefined, cursor: view.query.get('cursor') }
    return renderTemplate('list', {
        ...layoutData(request, path, params),
        frame: {
            lang: request.page.locale,
            title,
            canonical: canonicalLink(request, path, params),
            ogType: 'website',
            noIndex: keywords !== '',
        },
        title,
        keywords,
        searchable: view.searchable && !personal,
        searchAction: pageLink(request, path),
        lang: request.page.explicit ? request.page.locale : undefined,
        items: page.items.map(({ item, tags }) => {
            const card = itemCard(request, item)
            return tags ? { ...card, tags } : card
        }),
        pager: pager(
            request,
            path,
            listed,
            page,
            pageNumber,
            view.query.get('cursor') !== undefined,
        ),
    })
}

const entriesOf = (page: Page<CatalogItem>): Page<ListEntry> => ({
    ...page,
    items: page.items.map((item) => ({ item })),
})

/** The app's quick search: the words are looked for in titles, artists, authors and tags. */
const quickSearch = (settings: Parameters<typeof readItemQuery>[0], keywords: string) =>
    readItemQuery(settings, {
        get: (key) =>
            key === 'type'
                ? keywords
                    ? 'quick'
                    : undefined
                : key === 'keywords'
                  ? keywords
                  : undefined,
    })
