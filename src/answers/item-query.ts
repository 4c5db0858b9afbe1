import type { Catalog } from '../catalog/catalog.js'
import {
    optionFilter,
    runQuery,
    type ItemFilter,
    type ItemQuery,
    type ItemSequence,
} from '../catalog/search.js'
import type { ContentType } from '../content/item-types.js'
import type { TypeSettings } from '../content/server-settings.js'
import { decodeOption, type FormInput } from '../content/form-values.js'

/**
 * Reads a list query: `type=quick&keywords=…`, a declared search form, or nothing (the plain
 * list). As in the official toolkit, an unknown form type lists everything.
 */
export const readItemQuery = (settings: TypeSettings, input: FormInput): ItemQuery => {
    const type = input.get('type')
    if (type === 'quick') return { keywords: input.get('keywords') ?? '', filters: [] }
    const form = settings.searches.find((search) => search.type === type)
    if (!form) return { keywords: '', filters: [] }
    const query: ItemQuery = { keywords: '', filters: [] }
    for (const option of form.options ?? []) {
        const value = decodeOption(option, input)
        if (option.sort) {
            const chosen = option.values?.find(({ name }) => name === value)
            if (chosen?.by) query.sort = { by: chosen.by, order: chosen.order ?? 'asc' }
        } else if (
            option.filter === 'keywords' &&
            (option.type === 'text' || option.type === 'textArea')
        ) {
            query.keywords = `${query.keywords} ${String(value)}`.trim()
        } else {
            const filter = optionFilter(option, value)
            if (filter) query.filters.push(filter)
        }
    }
    return query
}

/** The items a query selects, in order, after the player's configuration filters. */
export const selectItems = (
    catalog: Catalog,
    type: ContentType,
    query: ItemQuery,
    configurationFilters: ItemFilter[],
): ItemSequence => {
    const ordered = query.sort ? catalog.sortedList(type, query.sort) : catalog.listed[type]
    return runQuery(ordered, { ...query, filters: [...configurationFilters, ...query.filters] })
}
