import type { OptionDeclaration, SortKey } from '../content/server-settings.js'
import { allVariants, localize } from '../content/text.js'
import type { CatalogItem } from './catalog.js'
import { newestFirst } from './order.js'

export type ItemFilter = (item: CatalogItem) => boolean
export type ItemSort = { by: SortKey; order: 'asc' | 'desc' }

/** What a list request asks for, after its form values are decoded. */
export type ItemQuery = {
    keywords: string
    filters: ItemFilter[]
    sort?: ItemSort
}

const searchTexts = new WeakMap<CatalogItem, string>()

/**
 * Lower-cased text of every searchable field in every language, made once per item: items are
 * shared between snapshots, so an edit recomputes only the items it changed.
 */
export const searchTextOf = (item: CatalogItem): string => {
    let text = searchTexts.get(item)
    if (text === undefined) {
        const { title, subtitle, artists, author, description, tags, rating } = item.fields
        const texts = [title, subtitle, artists, author, description, ...tags.map((tag) => tag.title)].flatMap(allVariants)
        text = [item.name, ...texts, item.type === 'level' ? String(rating) : ''].join('\n').toLowerCase()
        searchTexts.set(item, text)
    }
    return text
}

/** The values of a field, lower-cased where they are text, for filters to compare against. */
const fieldValues = (item: CatalogItem, field: string): unknown[] => {
    const { fields } = item
    switch (field) {
        case 'keywords':
            return [searchTextOf(item)]
        case 'title':
        case 'subtitle':
        case 'artists':
        case 'author':
            return allVariants(fields[field]).map((text) => text.toLowerCase())
        case 'tags':
            return fields.tags.flatMap((tag) => allVariants(tag.title)).map((text) => text.toLowerCase())
        case 'rating':
            return [fields.rating]
        case 'time':
            return fields.time === undefined ? [] : [fields.time]
        case 'name':
            return [item.name.toLowerCase()]
    }
    if (field.startsWith('meta.')) {
        const value = fields.meta[field.slice(5)]
        return (Array.isArray(value) ? value : [value]).map((entry) => (typeof entry === 'string' ? entry.toLowerCase() : entry))
    }
    return []
}

const words = (text: string) => text.toLowerCase().split(/\s+/).filter(Boolean)

const containsWords = (field: string, terms: string[]): ItemFilter => (item) => {
    const values = fieldValues(item, field).filter((value): value is string => typeof value === 'string')
    return terms.every((term) => values.some((value) => value.includes(term)))
}

/** The filter an option's value stands for, or undefined when the value filters nothing. */
export const optionFilter = (option: OptionDeclaration, value: unknown): ItemFilter | undefined => {
    const field = option.filter
    if (!field) return undefined
    switch (option.type) {
        case 'text':
        case 'textArea': {
            const terms = words(String(value))
            return terms.length ? containsWords(field, terms) : undefined
        }
        case 'slider': {
            const limit = value as number
            const compare = option.compare ?? 'min'
            return (item) =>
                fieldValues(item, field).some(
                    (entry) => typeof entry === 'number' && (compare === 'min' ? entry >= limit : compare === 'max' ? entry <= limit : entry === limit),
                )
        }
        case 'toggle':
            return value ? (item) => fieldValues(item, field).some(Boolean) : undefined
        case 'select': {
            if (value === option.ignore) return undefined
            const wanted = String(value).toLowerCase()
            return (item) => fieldValues(item, field).some((entry) => String(entry).toLowerCase() === wanted)
        }
        case 'multi': {
            const selected = new Set((value as string[]).map((name) => name.toLowerCase()))
            // Nothing or everything selected narrows nothing: both mean "any of them".
            if (selected.size === 0 || selected.size === option.values?.length) return undefined
            return (item) => fieldValues(item, field).some((entry) => selected.has(String(entry).toLowerCase()))
        }
        default:
            return undefined
    }
}

/**
 * Quick-search relevance: the whole phrase in the title first, then the phrase anywhere, then
 * every word matching a whole word, then partial matches. Items missing a word are dropped.
 */
const relevance = (item: CatalogItem, phrase: string, terms: string[]) => {
    const searchText = searchTextOf(item)
    if (!terms.every((term) => searchText.includes(term))) return -1
    if (allVariants(item.fields.title).some((title) => title.toLowerCase().includes(phrase))) return 0
    if (searchText.includes(phrase)) return 1
    const itemWords = new Set(words(searchText.replace(/[^\p{L}\p{N}\s]/gu, ' ')))
    return terms.every((term) => itemWords.has(term)) ? 2 : 3
}

export const searchByKeywords = (items: readonly CatalogItem[], keywords: string): readonly CatalogItem[] => {
    const terms = words(keywords)
    if (!terms.length) return items
    const phrase = terms.join(' ')
    const ranked: { item: CatalogItem; rank: number }[] = []
    for (const item of items) {
        const rank = relevance(item, phrase, terms)
        if (rank >= 0) ranked.push({ item, rank })
    }
    // Array.prototype.sort is stable: within a rank, the list's own order is kept.
    return ranked.sort((a, b) => a.rank - b.rank).map(({ item }) => item)
}

const sortValue = (item: CatalogItem, by: SortKey, fallbackLocale: string): string | number => {
    switch (by) {
        case 'time':
            return item.fields.time ?? -Infinity
        case 'rating':
            return item.fields.rating
        case 'name':
            return item.name
        case 'title':
        case 'author':
            return localize(item.fields[by], fallbackLocale, fallbackLocale).toLowerCase()
    }
}

export const sortItems = (items: readonly CatalogItem[], sort: ItemSort, fallbackLocale: string): CatalogItem[] => {
    const direction = sort.order === 'asc' ? 1 : -1
    const keyed = items.map((item) => ({ item, key: sortValue(item, sort.by, fallbackLocale) }))
    keyed.sort((a, b) => (a.key < b.key ? -direction : a.key > b.key ? direction : newestFirst(a.item, b.item)))
    return keyed.map(({ item }) => item)
}

/** Applies a query to a type's items, given in the order the query asks for. */
export const runQuery = (ordered: readonly CatalogItem[], query: ItemQuery): readonly CatalogItem[] => {
    const filtered = query.filters.length ? ordered.filter((item) => query.filters.every((filter) => filter(item))) : ordered
    return searchByKeywords(filtered, query.keywords)
}
