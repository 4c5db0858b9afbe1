import type { ContentType } from '../content/item-types.js'
import { readItemQuery, selectItems } from '../answers/item-query.js'
import { pageSizes, paginate } from '../answers/pagination.js'
import { itemCard } from './item-cards.js'
import { canonicalLink, layoutData, pageLink, type PageRequest } from './page-frame.js'
import { pager } from './pager.js'
import { renderTemplate } from './templates.js'
import { typeTitle } from './ui-text.js'

/**
 * A type's list as the app pages it (same page size, order and paging mode), with the app's
 * quick search: the words are looked for in titles, artists, authors and tags.
 */
export const listPage = (request: PageRequest, type: ContentType) => {
    const { catalog, view } = request
    const settings = catalog.settings.types[type]
    const keywords = (view.query.get('keywords') ?? '').slice(0, 200)
    const query = readItemQuery(settings, {
        get: (key) =>
            key === 'type'
                ? keywords
                    ? 'quick'
                    : undefined
                : key === 'keywords'
                  ? keywords
                  : undefined,
    })
    const items = selectItems(catalog, type, query, view.configurationFilters(type))
    const page = paginate(items, pageSizes.items, view.query, settings.paging, (item) => item.name)
    const path = `/${type}s/list`
    const pageNumber = Number(view.query.get('page') ?? 0)
    const title = view.renderer.optionalText(settings.title) ?? typeTitle(type, request.page.locale)
    const params = {
        keywords: keywords || undefined,
        page: pageNumber || undefined,
        cursor: view.query.get('cursor'),
    }
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
        searchable: view.searchable,
        searchAction: pageLink(request, path),
        lang: request.page.explicit ? request.page.locale : undefined,
        items: page.items.map((item) => itemCard(request, item)),
        pager: pager(
            request,
            path,
            { keywords: keywords || undefined },
            page,
            pageNumber,
            view.query.get('cursor') !== undefined,
        ),
    })
}
