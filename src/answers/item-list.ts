import type { ServerItemList } from '@sonolus/core'
import { isContentType, type ProtocolType } from '../content/item-types.js'
import { offeredSearches } from './forms.js'
import { readItemQuery, selectItems } from './item-query.js'
import { pageSizes, paginate } from './pagination.js'
import { askedPersonList, personRecordList } from './person-records.js'
import { namedPerson, worksOfPerson } from './person-works.js'
import type { RequestView } from './request-view.js'

/**
 * E9: a page of a type's list, searched as the query says. The items come as the JSON each item
 * keeps per renderer, to be put in as they are; the rest is the answer without them.
 */
export const itemList = (view: RequestView, type: ProtocolType) => {
    const personal = askedPersonList(view, type)
    if (personal === 'records') return personRecordList(view)
    const settings = view.catalog.settings.types[type]
    const items = !isContentType(type)
        ? []
        : personal === 'works'
          ? worksOfPerson(view, namedPerson(view), type)
          : selectItems(
                view.catalog,
                type,
                readItemQuery(settings, view.query),
                view.configurationFilters(type),
            )
    const page = paginate(items, pageSizes.items, view.query, settings.paging, (item) => item.name)
    const rest: Omit<ServerItemList<unknown>, 'items'> = {
        title: view.renderer.optionalText(settings.title),
        pageCount: page.pageCount,
        cursor: page.cursor,
        searches: offeredSearches(view, settings.searches),
    }
    return { rest, itemsJson: page.items.map((item) => view.renderer.itemJson(item)) }
}
