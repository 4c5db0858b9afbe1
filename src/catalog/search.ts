import type { OptionDeclaration, SortKey } from '../content/server-settings.js'
import { allVariants, localize } from '../content/text.js'
import type { CatalogItem } from './catalog.js'
import type { Sequence } from '../util/sequence.js'
import { newestFirst, type Order } from './order.js'
import { findEach, listSearchOf, type Found, type TextFound } from './search-index.js'
import { holdsWholeWord, searchTextOf } from './search-text.js'

export type ItemFilter = (item: CatalogItem) => boolean
export type ItemSort = { by: SortKey; order: 'asc' | 'desc' }

/** What a list request asks for, after its form values are decoded. */
export type ItemQuery = {
    keywords: string
    filters: ItemFilter[]
    sort?: ItemSort
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
 * The items found that pass the filters, most relevant first, each rank in the items' order:
 * the whole phrase in the title first, then the phrase anywhere, then every word matching a whole
 * word, then partial matches.
 */
const rank = (found: Found, terms: readonly string[], filters: readonly ItemFilter[]): ItemSequence => {
    if ('inTitle' in found) {
        // One word, and the index said which items hold it in their title.
        const ranks: CatalogItem[][] = [[], []]
        found.items.forEach((item, index) => {
            if (!filters.length || filters.every((filter) => filter(item))) ranks[1 - found.inTitle[index]!]!.push(item)
        })
        return ranks[0]!.concat(ranks[1]!)
    }
    if (!filters.length) return new RankedItems(found, terms)
    const kept = found.items.flatMap((item, index) => (filters.every((filter) => filter(item)) ? [index] : []))
    return new RankedItems(
        {
            items: kept.map((index) => found.items[index]!),
            text: (at) => found.text(kept[at]!),
            titleSpan: (at) => found.titleSpan(kept[at]!),
            mayHoldInTitle: (at) => found.mayHoldInTitle(kept[at]!),
        },
        terms,
    )
}

export type ItemSequence = Sequence<CatalogItem>

/**
 * Found items in the order of their ranks, worked out only as far as asked: the first page of a
 * search holding thousands of items looks at the text of the few it shows, not of all of them.
 * The first rank (the phrase in the title) is known at once, since only items whose titles hold
 * every part of the search can be in it.
 */
class RankedItems implements ItemSequence {
    private readonly phrase: string
    private readonly inTitle: CatalogItem[] = []
    private readonly inTitleAt = new Set<number>()
    /** The second rank, as far as the items are looked at. */
    private readonly anywhere: CatalogItem[] = []
    /** Items looked at and in neither of the first two ranks, by their index. */
    private readonly later: number[] = []
    private looked = 0
    private whole: CatalogItem[] | undefined

    constructor(
        private readonly found: { items: CatalogItem[] } & TextFound,
        private readonly terms: readonly string[],
    ) {
        this.phrase = terms.join(' ')
        found.items.forEach((item, index) => {
            if (!found.mayHoldInTitle(index)) return
            const title = found.titleSpan(index)
            const at = found.text(index).indexOf(this.phrase, title.start)
            if (at >= 0 && at + this.phrase.length <= title.end) {
                this.inTitle.push(item)
                this.inTitleAt.add(index)
            }
        })
    }

    get length() {
        return this.found.items.length
    }

    slice(start = 0, end = this.length): CatalogItem[] {
        const first = this.inTitle.length
        while (first + this.anywhere.length < end && this.looked < this.length) this.lookAtNext()
        if (first + this.anywhere.length < Math.min(end, this.length)) return this.all().slice(start, end)
        return [...this.inTitle.slice(start, end), ...this.anywhere.slice(Math.max(0, start - first), Math.max(0, end - first))]
    }

    findIndex(predicate: (item: CatalogItem, index: number, items: readonly CatalogItem[]) => unknown) {
        return this.all().findIndex(predicate)
    }

    private lookAtNext() {
        const index = this.looked++
        if (this.inTitleAt.has(index)) return
        // One term is the phrase, and the item holds it. A phrase of several has a space, which the
        // name (the line before the title) never has, so it is found from the title on or not at all.
        if (this.terms.length === 1 || this.found.text(index).indexOf(this.phrase, this.found.titleSpan(index).start) >= 0) this.anywhere.push(this.found.items[index]!)
        else this.later.push(index)
    }

    private all() {
        if (!this.whole) {
            while (this.looked < this.length) this.lookAtNext()
            const wholeWords: CatalogItem[] = []
            const partial: CatalogItem[] = []
            for (const index of this.later) {
                const text = this.found.text(index)
                ;(this.terms.every((term) => holdsWholeWord(text, term)) ? wholeWords : partial).push(this.found.items[index]!)
            }
            this.whole = [...this.inTitle, ...this.anywhere, ...wholeWords, ...partial]
        }
        return this.whole
    }
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

/** Items by their sort values, newest first among equals: a total order. */
const compareSorted = (direction: number, a: CatalogItem, x: string | number, b: CatalogItem, y: string | number) =>
    x < y ? -direction : x > y ? direction : newestFirst(a, b)

/** The order `sortItems` puts items in, for placing a few items in a sorted list. */
export const sortOrder = (sort: ItemSort, fallbackLocale: string): Order<CatalogItem> => {
    const direction = sort.order === 'asc' ? 1 : -1
    return (a, b) => compareSorted(direction, a, sortValue(a, sort.by, fallbackLocale), b, sortValue(b, sort.by, fallbackLocale))
}

export const sortItems = (items: readonly CatalogItem[], sort: ItemSort, fallbackLocale: string): CatalogItem[] => {
    const direction = sort.order === 'asc' ? 1 : -1
    const keyed = items.map((item) => ({ item, key: sortValue(item, sort.by, fallbackLocale) }))
    keyed.sort((a, b) => compareSorted(direction, a.item, a.key, b.item, b.key))
    return keyed.map(({ item }) => item)
}

/**
 * Applies a query to a type's items, given in the order the query asks for. The keywords of a
 * list a snapshot made searchable are looked up in its index, so only the items holding them are
 * filtered and ranked (filtering first or after gives the same items in the same order); any
 * other list is searched item by item.
 */
export const runQuery = (ordered: readonly CatalogItem[], query: ItemQuery): ItemSequence => {
    const terms = words(query.keywords)
    if (!terms.length) return query.filters.length ? ordered.filter((item) => query.filters.every((filter) => filter(item))) : ordered
    const found = listSearchOf(ordered)?.find(terms) ?? findEach(ordered, terms)
    return rank(found, terms, query.filters)
}
