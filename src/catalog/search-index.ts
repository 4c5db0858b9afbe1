import type { CatalogItem } from './catalog.js'
import { isWord, searchTextOf, titleSpanOf, wordsOf, type TitleSpan } from './search-text.js'

/** A list of numbers kept ascending, with room beyond `length` to grow. */
type Growing = { values: Int32Array; length: number }

/**
 * Ascending lists of numbers by key, only ever appended to. Many lists of an index hold one
 * number (the items holding the number in a level's name, say), kept as that number rather than
 * as an array.
 */
class PostingLists {
    private readonly lists = new Map<number, Growing | number>()

    /** Appends `value`, which is at least the last value appended under `key`; a repeat is kept once. */
    add(key: number, value: number) {
        const list = this.lists.get(key)
        if (list === undefined) this.lists.set(key, value)
        else if (typeof list === 'number') {
            if (list !== value) this.lists.set(key, { values: Int32Array.of(list, value, 0, 0), length: 2 })
        } else if (list.values[list.length - 1] !== value) {
            if (list.length === list.values.length) {
                const grown = new Int32Array(list.length * 2)
                grown.set(list.values)
                list.values = grown
            }
            list.values[list.length++] = value
        }
    }

    get(key: number): Int32Array {
        const list = this.lists.get(key)
        if (list === undefined) return noValues
        return typeof list === 'number' ? Int32Array.of(list) : list.values.subarray(0, list.length)
    }

    forEach(key: number, visit: (value: number) => void) {
        const list = this.lists.get(key)
        if (list === undefined) return
        if (typeof list === 'number') visit(list)
        else for (let index = 0; index < list.length; index++) visit(list.values[index]!)
    }
}

const noValues = new Int32Array(0)

/**
 * A small integer (a V8 Smi, the cheapest Map key) for three UTF-16 code units: exact and
 * non-negative when each is below 1024 (Latin, Greek, Cyrillic…), else a hash, negative. Words
 * sharing a hash only add candidates, which the substring check then drops.
 */
const trigramKey = (a: number, b: number, c: number) => {
    if ((a | b | c) < 1024) return (a << 20) | (b << 10) | c
    const hash = Math.imul(a, 0x9e3779b1) ^ Math.imul(b, 0x85ebca77) ^ Math.imul(c, 0xc2b2ae3d)
    return -1 - (hash >>> 2)
}

const trigramKeys = (word: string) => {
    const keys = new Set<number>()
    for (let index = 2; index < word.length; index++) keys.add(trigramKey(word.charCodeAt(index - 2), word.charCodeAt(index - 1), word.charCodeAt(index)))
    return keys
}

/** The numbers in both ascending lists, ascending. */
const intersect = (a: Int32Array, b: Int32Array) => {
    const both = new Int32Array(Math.min(a.length, b.length))
    let length = 0
    for (let i = 0, j = 0; i < a.length && j < b.length; ) {
        const x = a[i]!
        const y = b[j]!
        if (x < y) i++
        else if (x > y) j++
        else {
            both[length++] = x
            i++
            j++
        }
    }
    return both.subarray(0, length)
}

/**
 * The words of a type's items, so that a quick search finds the items holding its terms without
 * looking at every item. Each distinct word is checked once per search (the words that may hold
 * a term are found by their trigrams), and the items come from the lists of the words that hold
 * it: a term in a thousand titles costs one substring check, not a thousand.
 *
 * Items are numbered (their slot) in the order they are added, and lists are typed arrays. The
 * index is only ever added to, so the snapshots that follow one another share it: an item that
 * changed is added as a new slot, and each snapshot's `ListSearch` knows which slots are its own.
 */
export class SearchIndex {
    private readonly slots = new Map<CatalogItem, number>()
    /** Each slot's search text and where its title is, at hand for ranking (a WeakMap lookup per item costs more than the check). */
    readonly texts: string[] = []
    readonly titleSpans: TitleSpan[] = []
    private readonly words: string[] = []
    private readonly wordIds = new Map<string, number>()
    /** Word ids by trigram of the word. */
    private readonly wordTrigrams = new PostingLists()
    /** Slots by word id: the items holding the word anywhere, and in their title. */
    private readonly holders = new PostingLists()
    private readonly titleHolders = new PostingLists()

    static of(items: Iterable<CatalogItem>): SearchIndex {
        const index = new SearchIndex()
        for (const item of items) index.add(item)
        return index
    }

    /** Slots handed out so far, including those of items no snapshot lists any more. */
    get slotCount() {
        return this.slots.size
    }

    slotOf(item: CatalogItem): number | undefined {
        return this.slots.get(item)
    }

    add(item: CatalogItem) {
        if (this.slots.has(item)) return
        const slot = this.slots.size
        this.slots.set(item, slot)
        const text = searchTextOf(item)
        const title = titleSpanOf(item)
        this.texts.push(text)
        this.titleSpans.push(title)
        for (const word of wordsOf(text)) this.holders.add(this.wordId(word), slot)
        for (const word of wordsOf(text.slice(title.start, title.end))) this.titleHolders.add(this.wordId(word), slot)
    }

    /** The ids of the words holding `part` (letters and digits): by their trigrams, or for a shorter part by a look at every word. */
    wordsHolding(part: string): number[] {
        if (part.length < 3) return this.words.flatMap((word, id) => (word.includes(part) ? [id] : []))
        const lists = [...trigramKeys(part)].map((key) => this.wordTrigrams.get(key))
        // Shortest first, so every intersection is at most as long as the shortest list.
        lists.sort((a, b) => a.length - b.length)
        return Array.from(lists.reduce(intersect)).filter((id) => this.words[id]!.includes(part))
    }

    forEachHolder(word: number, visit: (slot: number) => void) {
        this.holders.forEach(word, visit)
    }

    forEachTitleHolder(word: number, visit: (slot: number) => void) {
        this.titleHolders.forEach(word, visit)
    }

    private wordId(word: string) {
        let id = this.wordIds.get(word)
        if (id === undefined) {
            id = this.words.length
            this.words.push(word)
            this.wordIds.set(word, id)
            for (const key of trigramKeys(word)) this.wordTrigrams.add(key, id)
        }
        return id
    }
}

/**
 * The items holding every term of a search, in their list's order, with what ranking them needs:
 * for a search of one word, whether each holds it in its title (1) or not (0); else the search
 * text of the item at an index of `items`, and where its title is.
 */
export type Found = { items: CatalogItem[] } & ({ inTitle: number[] } | TextFound)

/** What ranking the items found needs when the index cannot tell it alone. */
export type TextFound = {
    text(index: number): string
    titleSpan(index: number): TitleSpan
    /** False when the item's title lacks a part of some term, so it cannot hold the search in its title. */
    mayHoldInTitle(index: number): boolean
}

/**
 * Work arrays over the slots, kept for the next search rather than made for each: a typed array
 * this large lives outside the heap, and making them for every search makes V8 collect the whole
 * heap far more often. Searches run one at a time (they never wait), so one set serves them all.
 */
class Scratch {
    /** The search that last wrote a slot's count (older counts read as 0), and the count. */
    stamps = new Uint32Array(0)
    counts = new Uint16Array(0)
    /** The search that last found a slot holding its term in the title. */
    titled = new Uint32Array(0)
    /** Like `stamps` and `counts`, for the parts held in the title. */
    titleStamps = new Uint32Array(0)
    titleCounts = new Uint16Array(0)
    /** The entries found, as `position << 1 | in title`. */
    entries = new Int32Array(0)
    private search = 0

    /** Starts a search over `slots` slots, and gives its number. */
    begin(slots: number) {
        if (this.stamps.length < slots || this.search === 0xffffffff) {
            const size = Math.max(slots, 2 * this.stamps.length)
            this.stamps = new Uint32Array(size)
            this.counts = new Uint16Array(size)
            this.titled = new Uint32Array(size)
            this.titleStamps = new Uint32Array(size)
            this.titleCounts = new Uint16Array(size)
            this.entries = new Int32Array(size)
            this.search = 0
        }
        return ++this.search
    }
}

const scratch = new Scratch()

/**
 * Counts, for each slot, how many of the parts in turn it holds (through any of a part's words),
 * and calls `holdsAll` for each slot holding every part. Only a slot that held every earlier part
 * counts the next one, and holding a part twice counts it once.
 */
const countHolders = (
    wordsByPart: readonly number[][],
    forEachHolder: (word: number, visit: (slot: number) => void) => void,
    stamps: Uint32Array,
    counts: Uint16Array,
    search: number,
    holdsAll: (slot: number) => void,
) => {
    wordsByPart.forEach((words, count) => {
        const last = count === wordsByPart.length - 1
        for (const word of words) {
            forEachHolder(word, (slot) => {
                if ((stamps[slot] === search ? counts[slot] : 0) !== count) return
                stamps[slot] = search
                counts[slot] = count + 1
                if (last) holdsAll(slot)
            })
        }
    })
}

/**
 * Quick search over one ordered list of a snapshot (its type's list, or that list sorted
 * another way): the index's items, as positions in the list, so that they come out in the
 * list's order. The positions are worked out on the first search.
 */
export class ListSearch {
    /** Each slot's position in the list (-1 for an item the list does not hold), and each position's slot. */
    private places: { positions: Int32Array; slots: Int32Array } | undefined

    constructor(
        private readonly list: readonly CatalogItem[],
        private readonly index: () => SearchIndex,
    ) {}

    find(terms: readonly string[]): Found {
        const index = this.index()
        const { positions, slots } = this.placesIn(index)
        // The items holding a word that holds each part of a term are the items that may hold the
        // term; for a term of letters and digits only, exactly those that do. A part shorter than a
        // trigram would need a look at every word, so it narrows only when no part is longer.
        const parts = terms.flatMap(wordsOf)
        const longest = parts.reduce((a, b) => (b.length > a.length ? b : a), '')
        const looked = longest.length < 3 ? [longest].filter(Boolean) : parts.filter((part) => part.length >= 3)
        if (!looked.length) return findEach(this.list, terms)
        const exact = terms.every((term) => isWord(term) && looked.includes(term))
        const wordsByPart = looked.map((part) => index.wordsHolding(part))
        const search = scratch.begin(positions.length)
        const { stamps, counts, titled, titleStamps, titleCounts, entries } = scratch
        // With one term of letters and digits, its words' lists also say which items hold it in their title.
        const titles = exact && terms.length === 1
        if (titles) for (const word of wordsByPart[0]!) index.forEachTitleHolder(word, (slot) => (titled[slot] = search))
        let found = 0
        countHolders(wordsByPart, (word, visit) => index.forEachHolder(word, visit), stamps, counts, search, (slot) => {
            if (slot < positions.length && positions[slot]! >= 0) entries[found++] = (positions[slot]! << 1) | (titled[slot] === search ? 1 : 0)
        })
        // Sorted, the entries are in the list's order.
        const ordered = entries.subarray(0, found).sort()
        const items: CatalogItem[] = []
        if (titles) {
            const inTitle: number[] = []
            for (const entry of ordered) {
                items.push(this.list[entry >> 1]!)
                inTitle.push(entry & 1)
            }
            return { items, inTitle }
        }
        // Only an item whose title holds every part may hold the search in its title: ranking looks at the others' text less.
        countHolders(wordsByPart, (word, visit) => index.forEachTitleHolder(word, visit), titleStamps, titleCounts, search, () => {})
        const itemSlots: number[] = []
        for (const entry of ordered) {
            const slot = slots[entry >> 1]!
            if (!exact && !terms.every((term) => index.texts[slot]!.includes(term))) continue
            items.push(this.list[entry >> 1]!)
            itemSlots.push(slot)
        }
        return {
            items,
            text: (at) => index.texts[itemSlots[at]!]!,
            titleSpan: (at) => index.titleSpans[itemSlots[at]!]!,
            mayHoldInTitle: (at) => titleStamps[itemSlots[at]!] === search && titleCounts[itemSlots[at]!] === looked.length,
        }
    }

    private placesIn(index: SearchIndex) {
        if (!this.places) {
            const positions = new Int32Array(index.slotCount).fill(-1)
            const slots = Int32Array.from(this.list, (item) => index.slotOf(item)!)
            slots.forEach((slot, position) => {
                positions[slot] = position
            })
            this.places = { positions, slots }
        }
        return this.places
    }
}

/** The items of a list holding every term, found by looking at each item. */
export const findEach = (list: readonly CatalogItem[], terms: readonly string[]): Found => {
    const items = list.filter((item) => terms.every((term) => searchTextOf(item).includes(term)))
    return { items, text: (at) => searchTextOf(items[at]!), titleSpan: (at) => titleSpanOf(items[at]!), mayHoldInTitle: () => true }
}

const listSearches = new WeakMap<readonly CatalogItem[], ListSearch>()

/** Lets quick searches over `list` use `index`, which must hold every item of the list. */
export const makeSearchable = (list: readonly CatalogItem[], index: () => SearchIndex) => {
    listSearches.set(list, new ListSearch(list, index))
}

/** The search of a list a snapshot made searchable, if it is one. */
export const listSearchOf = (list: readonly CatalogItem[]) => listSearches.get(list)
