import { newestFirst } from '../catalog/order.js'
import type { ContentType } from '../content/item-types.js'
import type { Person } from '../people/people.js'
import { refuse } from '../util/refusal.js'
import type { RequestView } from './request-view.js'

/**
 * A type's list search for what one person made (`type=works&user=NAME`): what "More" of a
 * section of their page opens, every listed item of that type, newest first.
 */
const worksSearch = 'works'

/** The search values of a person's items of one type, for their section's "More". */
export const worksSearchValues = (person: Person) =>
    new URLSearchParams({ type: worksSearch, user: person.name }).toString()

/** Whether a list asks for a person's items rather than a search of the type. */
export const asksForWorks = (view: RequestView) => view.query.get('type') === worksSearch

/** A person's listed items of a type, newest first, the player's configuration applied. */
export const worksOfPerson = (view: RequestView, person: Person, type: ContentType) => {
    const filters = view.configurationFilters(type)
    return [...(person.works.items.get(type) ?? [])]
        .filter((item) => !item.fields.unlisted && filters.every((filter) => filter(item)))
        .sort(newestFirst)
}

/** The person a `user=NAME` search names, or a 404 that says who was not found. */
export const namedPerson = (view: RequestView): Person => {
    const name = view.query.get('user') ?? ''
    return (
        view.catalog.people.get(name) ??
        refuse('not-found', `user ${JSON.stringify(name.slice(0, 100))} not found`)
    )
}
