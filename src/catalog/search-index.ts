import type { CatalogItem, ItemList } from './catalog.js'
import {
    addSlots,
    entriesOf,
    fillAll,
    intersectInto,
    keepHolding,
    unionInto,
    wordsFor,
    type PositionSet,
} from './position-set.js'
import {
    composeSearchText,
    forEachWord,
    isWord,
    searchTextOf,
    titleSpanOf,
    wordsOf,
    type TitleSpan,
} from './search-text.js'
import { buffersOf, type FrozenLists } from './frozen-lists.js'
import { PostingLists } from './posting-lists.js'

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

/** The key of the trigram of `word` ending at `index`. */
const trigramAt = (word: string, index: number) =>
    trigramKey(word.charCodeAt(index - 2), word.charCodeAt(index - 1), word.charCodeAt(index))

const trigramKeys = (word: string) => {
    const keys = new Set<number>()
    for (let index = 2; index < word.length; index++) keys.add(trigramAt(word, index))
    return keys
}

const grown = (array: Uint32Array) => {
    const larger = new Uint32Array(array.length * 2)
    larger.set(array)
    return larger
}

/**
 * A hash of the characters of `text` from `start` to `end`, so that a word of an item's text is
 * looked up where it stands: made a string of its own (and dropped) for every word of every item,
 * it was most of what building an index left for the collector.
 */
const hashOf = (text: string, start: number, end: number) => {
    let hash = 0x811c9dc5
    for (let at = start; at < end; at++) hash = Math.imul(hash ^ text.charCodeAt(at), 0x01000193)
    return hash >>> 0
}

/** Puts the id of the word of `hash` in the first free place from its hash's. */
const placeWord = (ids: Int32Array, hash: number, id: number) => {
    const mask = ids.length - 1
    let at = hash & mask
    while (ids[at] !== 0) at = (at + 1) & mask
    ids[at] = id + 1
}

/**
 * A table of `size` places (a power of two) holding the ids of the first `count` words, by their
 * hashes: kept, since hashing 130,000 words again when the table doubles held the loop 30 ms.
 */
const wordTable = (hashes: Uint32Array, count: number, size: number) => {
    const ids = new Int32Array(size)
    for (let id = 0; id < count; id++) placeWord(ids, hashes[id]!, id)
    return ids
}

/** Bits of a junction filter (see `SearchIndex.junctionChunks`). */
const junctionBitCount = 1024

/** Blocks of 32 slots in a chunk of junctions, as a power of two (32 blocks, 128 KiB a chunk). */
const junctionBlockShift = 5
const junctionBlocksPerChunk = 1 << junctionBlockShift
/** A slot's chunk is `slot >>> junctionChunkShift`. */
const junctionChunkShift = junctionBlockShift + 5
/** Where a block's words begin in its chunk. */
const junctionBase = (block: number) => (block & (junctionBlocksPerChunk - 1)) * junctionBitCount

/** Short parts whose words are kept (see `SearchIndex.shortParts`). */
const maxShortParts = 4096

/**
 * A hash of the `left` characters of `text` before `end` and the `right` ones from `start` (a
 * character missing at the text's edge counts as 0).
 */
const junctionHash = (text: string, end: number, start: number, left: 1 | 2, right: 1 | 2) => {
    let hash = Math.imul(left + 2 * right, 0x27d4eb2f)
    for (let at = end - left; at < end; at++)
        hash = Math.imul(hash ^ (text.charCodeAt(at) || 0), 0x9e3779b1)
    for (let at = start; at < start + right; at++)
        hash = Math.imul(hash ^ (text.charCodeAt(at) || 0), 0x85ebca77)
    return hash >>> 0
}

/** The two bits of the filter that a junction's hash sets. */
const firstBit = (hash: number) => hash >>> 22
const secondBit = (hash: number) => (hash >>> 12) & (junctionBitCount - 1)
const bitsOf = (hash: number) => [firstBit(hash), secondBit(hash)]

/** Two characters a side of a junction where the term there has them, else one. */
const widthOf = (term: string) => (term.length >= 2 ? 2 : 1)

/**
 * The bits of the junctions the phrase `terms` (joined by spaces) makes where each term meets the
 * next: on each side two characters when that side's term has them, else one.
 */
export const junctionBits = (terms: readonly string[]) =>
    terms.slice(1).flatMap((term, at) => {
        const before = terms[at]!
        const phrase = `${before} ${term}`
        return bitsOf(
            junctionHash(phrase, before.length, before.length + 1, widthOf(before), widthOf(term)),
        )
    })

/** Letters a–z as bits 0–25 of one word, digits 0–9 as bits 0–9 of the next. */
type Characters = { letters: number; digits: number }

/** Sets the bits of the letters and digits of `text` from `start` to `end` into `into` at `at`. */
const characterBits = (text: string, start: number, end: number, into: Uint32Array, at: number) => {
    let letters = 0
    let digits = 0
    for (let index = start; index < end; index++) {
        const code = text.charCodeAt(index)
        if (code >= 97 && code <= 122) letters |= 1 << (code - 97)
        else if (code >= 48 && code <= 57) digits |= 1 << (code - 48)
    }
    into[at] = letters
    into[at + 1] = digits
}

/** A part of a search that is one letter a–z or one digit: found by the items' sets of characters, not their words. */
const isCharacter = (part: string) => part.length === 1 && /[a-z0-9]/.test(part)

const charactersOf = (parts: readonly string[]): Characters | undefined => {
    if (!parts.length) return undefined
    const bits = new Uint32Array(2)
    characterBits(parts.join(''), 0, parts.length, bits, 0)
    return { letters: bits[0]!, digits: bits[1]! }
}

/** The numbers in both ascending lists, ascending. */
const intersect = (a: Int32Array, b: Int32Array) => {
    const both = new Int32Array(Math.min(a.length, b.length))
    let length = 0
    for (let i = 0, j = 0; i < a.length && j < b.length;) {
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

/** An index's arrays and words, as a worker built them (see `SearchIndex.handOver`). */
export type BuiltIndex = {
    slotCount: number
    textCharacters: Uint32Array
    titleCharacters: Uint32Array
    junctionChunks: Uint32Array[]
    words: string[]
    wordIds: Int32Array
    wordHashes: Uint32Array
    wordTrigrams: FrozenLists
    holders: FrozenLists
    titleHolders: FrozenLists
}

/** The items of an index built on a worker by slot, and the texts the serving thread made of them. */
export type TakenItems = {
    slots: Map<CatalogItem, number>
    texts: string[]
    titleSpans: TitleSpan[]
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
    private readonly slots: Map<CatalogItem, number>
    /** Each slot's search text and where its title is, at hand for ranking (a WeakMap lookup per item costs more than the check). */
    readonly texts: string[]
    readonly titleSpans: TitleSpan[]
    /** Slots whose text is indexed: as many as `slots` hands out, on the serving thread. */
    private indexed: number
    /** Each slot's letters a–z and digits 0–9, in its text and in its title (see `characterBits`), two words a slot. */
    private textCharacters: Uint32Array
    private titleCharacters: Uint32Array
    /**
     * The junctions of each slot's text: the characters either side of each space, one or two on
     * each side (four kinds), each hashed to two of 1,024 bits (a Bloom filter). Where two terms
     * of a phrase meet, its text holds the end of one, a space and the start of the next: a text
     * lacking one of the phrase's junctions cannot hold it, which spares ranking a look through
     * most texts for a rare phrase. One character a side only for a term of one (`a chart`): most
     * texts have `a c` at some space. Kept 32 slots a block, a word per bit (slot `s`'s bit `b` in
     * word `junctionBase(s >>> 5) + b` of its chunk): a slot's bits are set within its block as
     * the index is built, and a phrase's few bits are and-ed a block at a time into one small set of slots
     * (`slotsMayHold`), where they were read at each entry ranked, at 100,000 places far apart.
     * The blocks are kept in chunks of `junctionBlocksPerChunk`, a new chunk made as slots come:
     * one array doubled as a build of 100,000 items went was copied 8 MB into 16 MB in one step
     * of a build in slices, 20 ms of the loop during the first scan (bench/write-stall.ts).
     */
    private readonly junctionChunks: Uint32Array[]
    private readonly words: string[]
    /** Each word's id plus one by the hash of the word (see `hashOf`), at most half full; 0 is no word. */
    private wordIds: Int32Array
    /** Each word's hash, by id. */
    private wordHashes: Uint32Array
    /** Word ids by trigram of the word. */
    private readonly wordTrigrams: PostingLists
    /** Slots by word id: the items holding the word anywhere, and in their title. */
    private readonly holders: PostingLists
    private readonly titleHolders: PostingLists
    /**
     * The words holding a part too short for trigrams, by part, and how many words were looked
     * at for it: a look at every word (a hundred thousand and more at 100,000 levels, where each
     * level's number is a word) made for every search of `le` or `桜` was most of its cost.
     */
    private readonly shortParts = new Map<string, { ids: number[]; looked: number }>()

    /**
     * An empty index, or one a worker built (`handOver`) of the items of `taken`, in slot order,
     * with the texts the serving thread made of them (see worker-built-index.ts).
     */
    constructor(built?: BuiltIndex, taken?: TakenItems) {
        this.slots = taken?.slots ?? new Map()
        this.texts = taken?.texts ?? []
        this.titleSpans = taken?.titleSpans ?? []
        this.indexed = built?.slotCount ?? 0
        this.textCharacters = built?.textCharacters ?? new Uint32Array(256)
        this.titleCharacters = built?.titleCharacters ?? new Uint32Array(256)
        this.junctionChunks = built?.junctionChunks ?? []
        this.words = built?.words ?? []
        this.wordIds = built?.wordIds ?? new Int32Array(1024)
        this.wordHashes = built?.wordHashes ?? new Uint32Array(512)
        this.wordTrigrams = new PostingLists(built?.wordTrigrams)
        this.holders = new PostingLists(built?.holders)
        this.titleHolders = new PostingLists(built?.titleHolders)
    }

    static of(items: Iterable<CatalogItem>): SearchIndex {
        const index = new SearchIndex()
        for (const item of items) index.add(item)
        return index
    }

    /** Slots handed out so far, including those of items no snapshot lists any more. */
    get slotCount() {
        return this.indexed
    }

    slotOf(item: CatalogItem): number | undefined {
        return this.slots.get(item)
    }

    add(item: CatalogItem) {
        if (this.slots.has(item)) return
        this.slots.set(item, this.slots.size)
        // Not through `searchTextOf`: the index keeps the text itself, and a WeakMap of 100,000
        // items rehashed as it grew held the loop 40 ms in one step of a build in slices.
        const text = composeSearchText(item)
        const title = titleSpanOf(item)
        this.texts.push(text)
        this.titleSpans.push(title)
        this.addText(text, title)
    }

    /**
     * Indexes the text of the next slot: on a worker, which is given the texts (the serving
     * thread keeps them and the slots), else through `add`.
     */
    addText(text: string, title: TitleSpan) {
        const slot = this.indexed++
        if (this.textCharacters.length < 2 * (slot + 1)) {
            this.textCharacters = grown(this.textCharacters)
            this.titleCharacters = grown(this.titleCharacters)
        }
        if (slot >>> junctionChunkShift === this.junctionChunks.length)
            this.junctionChunks.push(new Uint32Array(junctionBlocksPerChunk * junctionBitCount))
        // Indexed, without an array per junction: the index is built while the first scan
        // serves requests, and what it leaves for the collector is what holds them.
        for (
            let at = text.indexOf(' ', 1);
            at >= 0 && at + 1 < text.length;
            at = text.indexOf(' ', at + 1)
        )
            for (let kind = 0; kind < 4; kind++) {
                const hash = junctionHash(
                    text,
                    at,
                    at + 1,
                    (1 + (kind & 1)) as 1 | 2,
                    (1 + (kind >> 1)) as 1 | 2,
                )
                this.setJunction(firstBit(hash), slot)
                this.setJunction(secondBit(hash), slot)
            }
        characterBits(text, 0, text.length, this.textCharacters, 2 * slot)
        characterBits(text, title.start, title.end, this.titleCharacters, 2 * slot)
        // One pass over the words, in the text's order (so the words are numbered as they come):
        // the title's are those within its span, whose edges are line breaks.
        forEachWord(text, (start, end) => {
            const word = this.wordId(text, start, end)
            this.holders.add(word, slot)
            if (start >= title.start && end <= title.end) this.titleHolders.add(word, slot)
        })
    }

    /**
     * What the serving thread needs of an index built on a worker (search-index-worker.ts): its
     * arrays, to transfer, and its words, which go in chunks. The index is not used after.
     */
    handOver(): { built: Omit<BuiltIndex, 'words'>; words: string[]; transfer: ArrayBuffer[] } {
        const wordTrigrams = this.wordTrigrams.freeze()
        const holders = this.holders.freeze(this.words.length)
        const titleHolders = this.titleHolders.freeze(this.words.length)
        const built = {
            slotCount: this.indexed,
            textCharacters: this.textCharacters,
            titleCharacters: this.titleCharacters,
            junctionChunks: this.junctionChunks,
            wordIds: this.wordIds,
            wordHashes: this.wordHashes,
            wordTrigrams,
            holders,
            titleHolders,
        }
        const transfer = [
            this.textCharacters.buffer,
            this.titleCharacters.buffer,
            ...this.junctionChunks.map((chunk) => chunk.buffer),
            this.wordIds.buffer,
            this.wordHashes.buffer,
            ...[wordTrigrams, holders, titleHolders].flatMap(buffersOf),
        ] as ArrayBuffer[]
        return { built, words: this.words, transfer }
    }

    /**
     * The ids of the words holding `part` (letters and digits): by their trigrams, or for a
     * shorter part by a look at every word, done once per part and then only over the words
     * added since (`shortParts`).
     */
    wordsHolding(part: string): readonly number[] {
        if (part.length < 3) return this.wordsHoldingShort(part)
        const lists = [...trigramKeys(part)].map((key) => this.wordTrigrams.get(key))
        // Shortest first, so every intersection is at most as long as the shortest list.
        lists.sort((a, b) => a.length - b.length)
        return Array.from(lists.reduce(intersect)).filter((id) => this.words[id]!.includes(part))
    }

    /** Whether the slot's text (or its title) holds every one of the characters. */
    holdsCharacters(slot: number, characters: Characters, inTitle: boolean) {
        const bits = inTitle ? this.titleCharacters : this.textCharacters
        return (
            (bits[2 * slot]! & characters.letters) === characters.letters &&
            (bits[2 * slot + 1]! & characters.digits) === characters.digits
        )
    }

    private setJunction(bit: number, slot: number) {
        this.junctionChunks[slot >>> junctionChunkShift]![junctionBase(slot >>> 5) + bit]! |=
            1 << (slot & 31)
    }

    /** Into `into` (made when too small), the slots whose text has every one of the junction bits (`junctionBits`). */
    slotsMayHold(junctions: readonly number[], into: Uint32Array): Uint32Array {
        const blocks = wordsFor(this.indexed)
        const set = into.length >= blocks ? into.subarray(0, blocks) : new Uint32Array(blocks)
        for (let block = 0; block < blocks; block++) {
            const bits = this.junctionChunks[block >>> junctionBlockShift]!
            const base = junctionBase(block)
            let word = 0xffffffff
            for (let which = 0; which < junctions.length; which++)
                word &= bits[base + junctions[which]!]!
            set[block] = word
        }
        return set
    }

    /** Whether the slot's text has every one of the junction bits (`junctionBits`). */
    mayHoldPhrase(slot: number, junctions: readonly number[]) {
        const bits = this.junctionChunks[slot >>> junctionChunkShift]!
        const base = junctionBase(slot >>> 5)
        const bit = 1 << (slot & 31)
        for (let which = 0; which < junctions.length; which++)
            if ((bits[base + junctions[which]!]! & bit) === 0) return false
        return true
    }

    /** The slots holding the word (in their title): an array good until the next call. */
    holdersOf(word: number, inTitle: boolean): Int32Array {
        return (inTitle ? this.titleHolders : this.holders).read(word)
    }

    private wordsHoldingShort(part: string) {
        let known = this.shortParts.get(part)
        if (!known) {
            // Players type a few hundred distinct one- and two-character parts; any number more must not grow memory.
            if (this.shortParts.size >= maxShortParts) this.shortParts.clear()
            known = { ids: [], looked: 0 }
            this.shortParts.set(part, known)
        }
        const { words } = this
        for (let id = known.looked; id < words.length; id++)
            if (words[id]!.includes(part)) known.ids.push(id)
        known.looked = words.length
        return known.ids
    }

    /** The id of the word of `text` from `start` to `end`, numbered when new; the word is made a string of its own only then. */
    private wordId(text: string, start: number, end: number) {
        const ids = this.wordIds
        const mask = ids.length - 1
        const hash = hashOf(text, start, end)
        for (let at = hash & mask; ; at = (at + 1) & mask) {
            const known = ids[at]! - 1
            if (known < 0) break
            const word = this.words[known]!
            if (word.length === end - start && text.startsWith(word, start)) return known
        }
        const id = this.words.length
        const word = text.slice(start, end)
        this.words.push(word)
        if (id === this.wordHashes.length) this.wordHashes = grown(this.wordHashes)
        this.wordHashes[id] = hash
        if (2 * this.words.length > ids.length)
            this.wordIds = wordTable(this.wordHashes, this.words.length, 2 * ids.length)
        else placeWord(ids, hash, id)
        // Without a set of the keys: a list keeps a repeat of its last number once.
        for (let index = 2; index < word.length; index++)
            this.wordTrigrams.add(trigramAt(word, index), id)
        return id
    }
}

/**
 * The items holding every term of a search, in their list's order, as `position << 1 | flag`
 * entries: the position in the list, and whether the item may hold the search in its title (its
 * title holds a part of every term). For a search of one word the flag is exact (`exactTitles`):
 * the item holds it in its title or not. `ranks` is room for ranking to note what it learns of
 * each entry, zeroed. `text` and `titleSpan` give an item's search text by its position, and
 * `nextMayHoldPhrase` the next of the entries before `end` that may hold a phrase (see
 * `junctionBits`), `end` when none does.
 */
export type Found = {
    readonly entries: Int32Array
    readonly ranks: Uint8Array
    readonly exactTitles: boolean
    text(position: number): string
    titleSpan(position: number): TitleSpan
    nextMayHoldPhrase(
        entries: Int32Array,
        from: number,
        junctions: readonly number[],
        end: number,
    ): number
}

/** What a search found, in the scratch arrays (see `Scratch`). */
type Held = { entries: Int32Array; ranks: Uint8Array; exactTitles: boolean }

/**
 * A search's entries and ranks live in the scratch arrays, not in arrays of their own: a broad
 * search finds a hundred thousand items, and arrays that size made for every search (outside the
 * heap) make V8 collect the whole heap every few searches. A result read after the next search
 * began (a page of a recent search, `runQuery`) finds its entries again, into the scratch
 * arrays: the same entries, its ranks learned afresh. Copying every result when the next search
 * began cost more: 100,000 entries copied after each broad search, for the few results read again.
 */
class ScratchFound implements Found {
    private held: Held | undefined

    constructor(
        private readonly search: ListSearch,
        private readonly terms: readonly string[],
        readonly text: Found['text'],
        readonly titleSpan: Found['titleSpan'],
        readonly nextMayHoldPhrase: Found['nextMayHoldPhrase'],
    ) {}

    get entries() {
        return this.filled().entries
    }

    get ranks() {
        return this.filled().ranks
    }

    get exactTitles() {
        return this.filled().exactTitles
    }

    /** The scratch arrays go to another search. */
    lose() {
        this.held = undefined
    }

    private filled() {
        this.held ??= this.search.fill(this.terms, this)
        return this.held
    }
}

/**
 * Work arrays over a list's positions, kept for the next search rather than made for each: a
 * typed array this large lives outside the heap, and making them for every search makes V8
 * collect the whole heap far more often. Searches run one at a time (they never wait), so one set
 * serves them all, one result at a time.
 */
class Scratch {
    /** The positions holding every part, those whose title does, and room to work out a part's. */
    held = new Uint32Array(0)
    titled = new Uint32Array(0)
    part = new Uint32Array(0)
    /** The entries found (see `Found`), and their ranks. */
    entries = new Int32Array(0)
    ranks = new Uint8Array(0)
    /** The result reading `entries` and `ranks` now. */
    private holder: ScratchFound | undefined

    /** Starts `holder`'s search over a list of `positions`. */
    begin(positions: number, holder: ScratchFound) {
        if (this.holder !== holder) this.holder?.lose()
        this.holder = holder
        if (this.entries.length < positions) {
            const size = Math.max(positions, 2 * this.entries.length)
            this.held = new Uint32Array(wordsFor(size))
            this.titled = new Uint32Array(wordsFor(size))
            this.part = new Uint32Array(wordsFor(size))
            this.entries = new Int32Array(size)
            this.ranks = new Uint8Array(size)
        }
        const words = wordsFor(positions)
        return {
            held: this.held.subarray(0, words),
            titled: this.titled.subarray(0, words),
            part: this.part.subarray(0, words),
        }
    }

    /** The first `found` entries, with zeroed ranks, for the holder of the search begun. */
    hold(found: number, exactTitles: boolean): Held {
        return {
            entries: this.entries.subarray(0, found),
            ranks: this.ranks.subarray(0, found).fill(0),
            exactTitles,
        }
    }
}

const scratch = new Scratch()

/** A word held by at least this share of a list's items counts as common… */
const commonWordShare = 1 / 16
/** …and this many common words' sets are kept per list (at 100,000 items, 12 KiB each). */
const commonWordSets = 64
/**
 * Sets of parts costly to mark kept per list, the least recently used dropped (see
 * `ListSearch.partSets`; 3 MiB at 100,000 items). With 64, kept for the first parts asked, the
 * two-letter parts of the benchmark's mix alone (41, text and title) did not fit, and those left
 * out were marked again for every search of them.
 */
const costlyPartSets = 256

/**
 * Quick search over one ordered list of a snapshot (its type's list, or that list sorted
 * another way): the index's items, as positions in the list, so that they come out in the
 * list's order. The positions are worked out on the first search.
 *
 * Every step costs at most one pass over the list, however many items a search finds: the words
 * holding a part are looked up by trigrams, their items marked in a set of positions, one set
 * per part intersected a word of bits at a time; a single letter or digit, and a common word, is
 * a set of its own, made once per list; the positions are read off the last set in order, and
 * nothing is ranked here.
 */
export class ListSearch {
    /** Each slot's position in the list (-1 for an item the list does not hold), and each position's slot. */
    private places: { positions: Int32Array; slots: Int32Array } | undefined
    /** The positions whose text (or title) holds a letter or digit, by `${character}${inTitle}`. */
    private readonly characterSets = new Map<string, PositionSet>()
    /**
     * The positions of the items holding a common word (in their title), by `2 * word + inTitle`:
     * a word in every title marks a hundred thousand positions one by one, its set is copied a
     * word of bits at a time. Kept for the few commonest words only (see `commonWordSets`).
     */
    private readonly wordSets = new Map<number, PositionSet>()
    /**
     * The positions of the items holding a part (in their title), by `${inTitle}${part}`, for
     * the parts last asked whose marking cost as much as a common word's: a two-letter part
     * (`le`, `42`) is held by thousands of words, whose lists were gone through again for every
     * search of it, twice (text and title).
     */
    private readonly partSets = new Map<string, PositionSet>()

    constructor(
        private readonly list: readonly CatalogItem[],
        private readonly index: () => SearchIndex,
    ) {}

    /** The items holding every term, found when first read (see `ScratchFound`). */
    find(terms: readonly string[]): Found {
        // A search of no letter or digit has nothing to look up: each item is looked at.
        if (!this.parts(terms)) return findEach(this.list, terms)
        const index = this.index()
        const { slots } = this.placesIn(index)
        return new ScratchFound(
            this,
            terms,
            (position) => index.texts[slots[position]!]!,
            (position) => index.titleSpans[slots[position]!]!,
            (entries, from, junctions, end) => {
                // Fewer entries than blocks of slots (a phrase of two rarer words, most of the
                // mix): each entry's bits read where its slot has them, rather than every
                // block's bits and-ed first, which costs the same reads for each block.
                if (entries.length < wordsFor(index.slotCount)) {
                    for (let at = from; at < end; at++)
                        if (index.mayHoldPhrase(slots[entries[at]! >> 1]!, junctions)) return at
                    return end
                }
                const mayHold = this.slotsMayHold(index, junctions)
                // Indexed, a bit looked up per entry: this runs over tens of thousands of entries.
                for (let at = from; at < end; at++) {
                    const slot = slots[entries[at]! >> 1]!
                    if ((mayHold[slot >>> 5]! & (1 << (slot & 31))) !== 0) return at
                }
                return end
            },
        )
    }

    /**
     * The slots whose text may hold a phrase of these junction bits, and those bits: worked out
     * again only for other bits (another search's pages read between), in a set kept for it.
     */
    private mayHold: { junctions: readonly number[]; slots: Uint32Array } = {
        junctions: [],
        slots: new Uint32Array(0),
    }

    private slotsMayHold(index: SearchIndex, junctions: readonly number[]) {
        if (this.mayHold.junctions !== junctions)
            this.mayHold = { junctions, slots: index.slotsMayHold(junctions, this.mayHold.slots) }
        return this.mayHold.slots
    }

    /** The parts of the terms looked up in the index, apart from single letters and digits; undefined when there is none of either. */
    private parts(terms: readonly string[]) {
        const parts = terms.flatMap(wordsOf)
        const characters = [...new Set(parts.filter(isCharacter))]
        const looked = [...new Set(parts.filter((part) => !isCharacter(part)))]
        return looked.length || characters.length ? { looked, characters } : undefined
    }

    /** Finds the items holding every term into the scratch arrays, for `holder`. */
    fill(terms: readonly string[], holder: ScratchFound): Held {
        const index = this.index()
        const { slots } = this.placesIn(index)
        // The items holding a word that holds each part of a term are the items that may hold the
        // term; for a term of letters and digits only, exactly those that do. A single letter or
        // digit is in an item's set of characters.
        const { looked, characters } = this.parts(terms)!
        // A term that is a word, looked up whole (or a letter or digit), is held by every item found.
        const unchecked = terms.filter(
            (term) => !isWord(term) || !(looked.includes(term) || isCharacter(term)),
        )
        const exact = unchecked.length === 0
        // Looked up only for a part whose set is not kept, once for the text and the title.
        const wordsByPart: (readonly number[])[] = []
        const wordsHolding = (at: number) => (wordsByPart[at] ??= index.wordsHolding(looked[at]!))
        const { held, titled, part } = scratch.begin(slots.length, holder)
        this.holding(held, part, looked, wordsHolding, characters, false)
        // With one term of letters and digits, the items whose title holds its parts are those holding it in their title.
        this.holding(titled, part, looked, wordsHolding, characters, true)
        let found = entriesOf(held, titled, scratch.entries)
        if (!exact)
            found = keepHolding(scratch.entries, found, (position) => {
                const text = index.texts[slots[position]!]!
                for (let at = 0; at < unchecked.length; at++)
                    if (!text.includes(unchecked[at]!)) return false
                return true
            })
        return scratch.hold(found, exact && terms.length === 1)
    }

    /** Marks in `into` the positions whose text (or title) holds each part through one of its words (`wordsHolding` the part at an index), and each character; `spare` is room to work in. */
    private holding(
        into: PositionSet,
        spare: PositionSet,
        parts: readonly string[],
        wordsHolding: (at: number) => readonly number[],
        characters: readonly string[],
        inTitle: boolean,
    ) {
        if (!parts.length) fillAll(into, this.list.length)
        parts.forEach((part, at) => {
            const target = at === 0 ? into : spare
            const key = `${inTitle}${part}`
            const kept = this.partSets.get(key)
            if (kept) {
                target.set(kept)
                this.partSets.delete(key)
                this.partSets.set(key, kept)
            } else if (
                this.marking(target, wordsHolding(at), inTitle) >=
                commonWordShare * this.list.length
            ) {
                if (this.partSets.size >= costlyPartSets)
                    this.partSets.delete(this.partSets.keys().next().value!)
                this.partSets.set(key, target.slice())
            }
            if (at > 0) intersectInto(into, spare)
        })
        for (const character of characters)
            intersectInto(into, this.characterSet(character, inTitle))
    }

    /** Marks in `target` alone the positions holding one of the words (in their title), and answers what that cost: the words and the items marked one by one. */
    private marking(target: PositionSet, words: readonly number[], inTitle: boolean) {
        const index = this.index()
        const { positions } = this.placesIn(index)
        target.fill(0)
        let cost = words.length
        for (const word of words) {
            const holders = index.holdersOf(word, inTitle)
            const common =
                holders.length >= commonWordShare * this.list.length
                    ? this.wordSet(word, inTitle, holders)
                    : undefined
            if (common) unionInto(target, common)
            else {
                addSlots(target, holders, positions)
                cost += holders.length
            }
        }
        return cost
    }

    private wordSet(word: number, inTitle: boolean, slots: Int32Array) {
        const key = 2 * word + (inTitle ? 1 : 0)
        let set = this.wordSets.get(key)
        if (!set && this.wordSets.size < commonWordSets) {
            const { positions } = this.placesIn(this.index())
            set = new Uint32Array(wordsFor(this.list.length))
            addSlots(set, slots, positions)
            this.wordSets.set(key, set)
        }
        return set
    }

    private characterSet(character: string, inTitle: boolean) {
        const key = `${character}${inTitle}`
        let set = this.characterSets.get(key)
        if (!set) {
            const index = this.index()
            const { slots } = this.placesIn(index)
            const bits = charactersOf([character])!
            set = new Uint32Array(wordsFor(slots.length))
            for (let position = 0; position < slots.length; position++) {
                if (index.holdsCharacters(slots[position]!, bits, inTitle))
                    set[position >>> 5]! |= 1 << (position & 31)
            }
            this.characterSets.set(key, set)
        }
        return set
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
    const entries: number[] = []
    list.forEach((item, position) => {
        if (terms.every((term) => searchTextOf(item).includes(term)))
            entries.push((position << 1) | 1)
    })
    return {
        entries: Int32Array.from(entries),
        ranks: new Uint8Array(entries.length),
        exactTitles: false,
        text: (position) => searchTextOf(list[position]!),
        titleSpan: (position) => titleSpanOf(list[position]!),
        nextMayHoldPhrase: (_entries, from) => from,
    }
}

/** The index each searchable list uses, and its search once one was asked. */
const listSearches = new WeakMap<ItemList, { index: () => SearchIndex; search?: ListSearch }>()

/** Lets quick searches over `list` use `index`, which must hold every item of the list. */
export const makeSearchable = (list: ItemList, index: () => SearchIndex) => {
    listSearches.set(list, { index })
}

/** The search of a list a snapshot made searchable, if it is one: over the list as one array, made at the first search. */
export const listSearchOf = (list: ItemList) => {
    const searchable = listSearches.get(list)
    if (searchable) searchable.search ??= new ListSearch(list.toArray(), searchable.index)
    return searchable?.search
}
