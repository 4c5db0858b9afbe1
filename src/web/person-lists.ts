import type { CatalogItem } from '../catalog/catalog.js'
import type { ContentType } from '../content/item-types.js'
import { recordsOfPerson } from '../answers/leaderboards.js'
import { askedPersonList, rankedReplay } from '../answers/person-records.js'
import { namedPerson, worksOfPerson } from '../answers/person-works.js'
import { cardTags } from './item-cards.js'
import { sectionTitle } from './item-page.js'
import type { PageRequest } from './page-frame.js'
import { typeTitle } from './ui-text.js'

/** An item of a list page, with the tags its card shows when they are not the item's own. */
export type ListEntry = { item: CatalogItem; tags?: string[] }

/**
 * The list a section of a person's page leads to (`type=works` or `type=records`, with
 * `user=NAME`, as the app's "More"): what they made of a type, or their records with rank and
 * board. Undefined for any other list.
 */
export const personList = (request: PageRequest, type: ContentType) => {
    const { view } = request
    const asked = askedPersonList(view, type)
    if (!asked) return undefined
    const records = asked === 'records'
    const person = namedPerson(view)
    const name = view.renderer.text(person.title)
    const params = { type: view.query.get('type'), user: person.name }
    const entries: ListEntry[] = records
        ? recordsOfPerson(view, person).map((record) => ({
              item: record.replay,
              tags: cardTags(rankedReplay(view, record).tags),
          }))
        : worksOfPerson(view, person, type).map((item) => ({ item }))
    const what = records ? sectionTitle(request, '#RANKING') : typeTitle(type, request.page.locale)
    return { title: `${name} · ${what}`, params, entries }
}
