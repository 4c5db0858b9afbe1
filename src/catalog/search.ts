import type { OptionDeclaration, SortKey } from '../content/server-settings.js'
import { allVariants, localize } from '../content/text.js'
import type { CatalogItem, ItemList } from './catalog.js'
import type { Sequence } from '../util/sequence.js'
import { newestFirst } from './order.js'
import type { Order } from '../util/sorted-list.js'
import { findEach, junctionBits, listSearchOf, type Found } from './search-index.js'
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
            return fields.tags
                .flatMap((tag) => allVariants(tag.title))
                .map((text) => text.toLowerCase())
        case 'rating':
            return [fields.rating]
        case 'time':
            return fields.time === undefined ? [] : [fields.time]
        case 'name':
            return [item.name.toLowerCase()]
    }
    if (field.startsWith('meta.')) {
        const value = fields.meta[field.slice(5)]
        return (Array.isArray(value) ? value : [value]).map((entry) =>
            typeof entry === 'string' ? entry.toLowerCase() : entry,
        )
    }
    return []
}

const words = (text: string) => text.toLowerCase().split(/\s+/).filter(Boolean)

const containsWords =
    (field: string, terms: string[]): ItemFilter =>
    (item) => {
        const values = fieldValues(item, field).filter(
            (value): value is string => typeof value === 'string',
        )
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
                    (entry) =>
                        typeof entry === 'number' &&
                        (compare === 'min'
                            ? entry >= limit
                            : compare === 'max'
                              ? entry <= limit
                              : entry === limit),
                )
        }
        case 'toggle':
            return value ? (item) => fieldValues(item, field).some(Boolean) : undefined
        case 'select': {
            if (value === option.ignore) return undefined
            const wanted = String(value).toLowerCase()
            return (item) =>
                fieldValues(item, field).some((entry) => String(entry).toLowerCase() === wanted)
        }
        case 'multi': {
            const selected = new Set((value as string[]).map((name) => name.toLowerCase()))
            // Nothing or everything selected narrows nothing: both mean "any of them".
            if (selected.size === 0 || selected.size === option.values?.length) return undefined
            return (item) =>
                fieldValues(item, field).some((entry) => selected.has(String(entry).toLowerCase()))
        }
        default:
            return undefined
    }
}

export type ItemSequence = Sequence<CatalogItem>

/**
 * The items found that pass the filters, most relevant first, each rank in the items' order:
 * the whole phrase in the title first, then the phrase anywhere, then every word matching a whole
 * word, then partial matches.
 */
const rank = (
    list: readonly CatalogItem[],
    found: Found,
    terms: readonly string[],
    filters: readonly ItemFilter[],
): ItemSequence => {
    if (!filters.length) return new RankedItems(list, found, terms)
    const entries = found.entries.filter((entry) =>
        filters.every((filter) => filter(list[entry >> 1]!)),
    )
    return new RankedItems(
        list,
        {
            entries,
            ranks: new Uint8Array(entries.length),
            exactTitles: found.exactTitles,
            text: found.text,
            titleSpan: found.titleSpan,
            nextMayHoldPhrase: found.nextMayHoldPhrase,
        },
        terms,
    )
}

/** Ranks, best first: the phrase in the title, the phrase elsewhere, every term a whole word, the rest. */
const rankCount = 4

/**
 * Found items in the order of their ranks, worked out only as far as asked: the first page of a
 * search holding thousands of items looks at the text of the items before the page's last, rank
 * by rank, not at all of them. Each rank is read off the items found in their order, from where
 * the last page stopped, and an item is tested only for the rank being read: whether it holds
 * every term as a whole word is asked only once the phrase is known to be nowhere in it, and only
 * of the items the page needs.
 */
class RankedItems implements ItemSequence {
    private readonly phrase: string
    private readonly junctions: number[]
    /** Per rank: its items found so far (as indexes of the entries), and how far the entries were looked at for it. */
    private readonly members: number[][] = Array.from({ length: rankCount }, () => [])
    private readonly looked = new Array<number>(rankCount).fill(0)

    constructor(
        private readonly list: readonly CatalogItem[],
        private readonly found: Found,
        private readonly terms: readonly string[],
    ) {
        this.phrase = terms.join(' ')
        this.junctions = junctionBits(terms)
    }

    get length() {
        return this.found.entries.length
    }

    slice(start = 0, end = this.length): CatalogItem[] {
        const page: CatalogItem[] = []
        let before = 0
        for (let rank = 0; rank < rankCount && before < end; rank++) {
            const members = this.membersOf(rank, end - before)
            for (
                let at = Math.max(0, start - before);
                at < Math.min(members.length, end - before);
                at++
            )
                page.push(this.itemAt(members[at]!))
            before += members.length
        }
        return page
    }

    findIndex(
        predicate: (item: CatalogItem, index: number, items: readonly CatalogItem[]) => unknown,
    ) {
        return this.slice().findIndex(predicate)
    }

    private itemAt(at: number) {
        return this.list[this.found.entries[at]! >> 1]!
    }

    /** The first `wanted` items of a rank (all of them when it has fewer). */
    private membersOf(rank: number, wanted: number) {
        const members = this.members[rank]!
        const { entries } = this.found
        const { length } = entries
        // The phrase ranks need the flag (rank 0) or the phrase's junctions (rank 1): most items
        // found lack them, and are passed over here without the work of telling their rank.
        const phrase = rank === 1 && this.terms.length > 1
        let at = this.looked[rank]!
        while (members.length < wanted && at < length) {
            if (rank === 0) while (at < length && (entries[at]! & 1) === 0) at++
            else if (phrase) at = this.found.nextMayHoldPhrase(entries, at, this.junctions, length)
            if (at === length) break
            if (this.isOfRank(at, rank)) members.push(at)
            at++
        }
        this.looked[rank] = at
        return members
    }

    /** Whether the item is of `rank`, the ranks before it tested first (they are, when the ranks are read in order). */
    private isOfRank(at: number, rank: number): boolean {
        // What is known of each found item's rank: nothing (0), the rank plus one (1–4), or that it is past rank r (r + 5).
        const { ranks } = this.found
        for (;;) {
            const known = ranks[at]!
            if (known >= 1 && known <= rankCount) return known - 1 === rank
            const lowest = known === 0 ? 0 : known - rankCount
            if (lowest > rank) return false
            if (this.holdsRank(at, lowest)) ranks[at] = lowest + 1
            else ranks[at] = lowest + 1 === rankCount - 1 ? rankCount : lowest + 1 + rankCount
        }
    }

    /** Whether the item, known not to be of a better rank, is of this one. */
    private holdsRank(at: number, rank: number) {
        const entry = this.found.entries[at]!
        const mayHoldInTitle = (entry & 1) === 1
        if (rank === 0 && this.found.exactTitles) return mayHoldInTitle
        // One term is the phrase, and the item holds it.
        if (rank === 1 && this.terms.length === 1) return true
        if (rank === 0 && !mayHoldInTitle) return false
        // This entry alone: a look from it to the next that may hold the phrase, made for each
        // entry ranked, went through the rest of them each time (a search of `rain first`, whose
        // words are in thousands of items but the phrase in few, took 50 ms over 100,000 levels).
        if (
            rank <= 1 &&
            this.found.nextMayHoldPhrase(this.found.entries, at, this.junctions, at + 1) !== at
        )
            return false
        const text = this.found.text(entry >> 1)
        const title = this.found.titleSpan(entry >> 1)
        switch (rank) {
            case 0: {
                const inTitle = text.indexOf(this.phrase, title.start)
                return inTitle >= 0 && inTitle + this.phrase.length <= title.end
            }
            case 1:
                // A phrase of several terms has a space, which the name (the line before the title)
                // never has, so it is found from the title on or not at all.
                return text.indexOf(this.phrase, title.start) >= 0
            case 2:
                return this.terms.every((term) => holdsWholeWord(text, term))
            default:
                return true
        }
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
const compareSorted = (
    direction: number,
    a: CatalogItem,
    x: string | number,
    b: CatalogItem,
    y: string | number,
) => (x < y ? -direction : x > y ? direction : newestFirst(a, b))

/** The order `sortItems` puts items in, for placing a few items in a sorted list. */
export const sortOrder = (sort: ItemSort, fallbackLocale: string): Order<CatalogItem> => {
    const direction = sort.order === 'asc' ? 1 : -1
    return (a, b) =>
        compareSorted(
            direction,
            a,
            sortValue(a, sort.by, fallbackLocale),
            b,
            sortValue(b, sort.by, fallbackLocale),
        )
}

export const sortItems = (
    items: readonly CatalogItem[],
    sort: ItemSort,
    fallbackLocale: string,
): CatalogItem[] => {
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
export const runQuery = (ordered: ItemList, query: ItemQuery): ItemSequence => {
    const terms = words(query.keywords)
    if (!terms.length)
        return query.filters.length
            ? ordered.toArray().filter((item) => query.filters.every((filter) => filter(item)))
            : ordered
    const recent = query.filters.length ? undefined : recentOf(ordered)
    const key = terms.join(' ')
    const kept = recent?.get(key)
    if (kept) {
        recent!.delete(key)
        recent!.set(key, kept)
        return kept
    }
    const items = ordered.toArray()
    const found = listSearchOf(ordered)?.find(terms) ?? findEach(items, terms)
    const ranked = rank(items, found, terms, query.filters)
    if (recent) {
        if (recent.size >= recentSearches) recent.delete(recent.keys().next().value!)
        recent.set(key, ranked)
    }
    return ranked
}

/**
 * The last few searches of each list, ranked as far as their pages were asked: a player pages
 * through a search one page after another, and the next page of a phrase most items lack (`a
 * chart`, which nearly every level holds both words of) then goes on from where the last one
 * stopped instead of looking through every item's text again (12 ms at 100,000 levels). Searches
 * with filters (a player's configuration) are not kept: their filters are not comparable.
 */
const recentSearches = 8
const recents = new WeakMap<ItemList, Map<string, ItemSequence>>()
const recentOf = (list: ItemList) => {
    let recent = recents.get(list)
    if (!recent) {
        recent = new Map()
        recents.set(list, recent)
    }
    return recent
}
