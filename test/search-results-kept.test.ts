/**
 * A quick search's result is found into work arrays the next search takes over. A result read
 * after other searches (the next page of a search kept among the recent ones) finds its items
 * again, the second time from the sets a list keeps of parts costly to mark: every page must be
 * the page a search of the list item by item gives.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import type { CatalogItem } from '../src/catalog/catalog.js'
import { makeSearchable, SearchIndex } from '../src/catalog/search-index.js'
import { ChunkedList } from '../src/util/chunked-list.js'
import { runQuery, type ItemSequence } from '../src/catalog/search.js'
import { normalizeFields } from '../src/content/records.js'

const test = suite('search: results read after later searches')

const words = ['neon', 'dream', 'night', 'drive', 'rain', 'échos', '夢', 'lullaby', 'road']

const level = (at: number): CatalogItem => ({
    type: 'level',
    name: `level-${at}`,
    file: `levels/level-${at}/item.yaml`,
    fields: normalizeFields('level', {
        title: `${words[at % 9]} ${words[(at * 7) % 9]} ${at}`,
        description: `a ${words[(at * 5) % 9]} chart & ${words[(at * 3) % 9]} ${(at * 7) % 1000}.`,
        rating: at % 40,
    }),
    locateReference: () => ({}),
    resources: {},
    comments: [],
    leaderboards: [],
})

const names = (items: ItemSequence, page: number) =>
    items.slice(20 * page, 20 * page + 20).map((item) => item.name)

test('every page of every search, each asked after the others', () => {
    const list = Array.from({ length: 2000 }, (_, at) => level(at))
    const index = SearchIndex.of(list)
    const searchable = ChunkedList.of(list)
    makeSearchable(searchable, () => index)
    // The same items, not made searchable: searched item by item, with no work arrays.
    const byItem = ChunkedList.of(list)
    // `12` is in over a hundred numbers, each a word of one or two items: its items are kept as a set once searched.
    const searches = [
        'neon',
        'dream night',
        'a chart',
        'chart &',
        'ra',
        'night 1',
        '夢',
        'e',
        '12',
        'rain 12',
    ]
    for (let page = 0; page < 4; page++)
        for (const keywords of searches) {
            const want = runQuery(byItem, { keywords, filters: [] })
            const got = runQuery(searchable, { keywords, filters: [] })
            assert.is(got.length, want.length, `"${keywords}" count`)
            assert.equal(names(got, page), names(want, page), `"${keywords}" page ${page}`)
        }
})

test('words of letters past the first 65,536 characters, beside emoji, lone surrogates and case changes, and words of the name: every search finds and ranks what one item by item does', () => {
    // 𠀋 and 𝒜 are letters of two UTF-16 units, 😀 is not a letter; İ lower-cases to two characters, Σ at a word's end to ς.
    // A word that begins another (`neon`, `neonlight`) is a word of its own.
    const odd = [
        '𠀋neon',
        'dream😀night',
        '\uD800rain',
        'ΟΔΟΣ',
        'İstanbul',
        '𝒜road',
        '٣٤drive',
        'neonlight',
    ]
    const list = Array.from({ length: 300 }, (_, at) => {
        const item = level(at)
        const title = `${odd[at % odd.length]} ${odd[(at * 3) % odd.length]}${at % 5 === 0 ? '😀' : ''}`
        return { ...item, fields: { ...item.fields, title } }
    })
    const index = SearchIndex.of(list)
    const searchable = ChunkedList.of(list)
    makeSearchable(searchable, () => index)
    const byItem = ChunkedList.of(list)
    const searches = [
        '𠀋',
        '𠀋neon',
        'neon',
        '😀',
        'dream😀',
        'night',
        'rain',
        'οδος',
        'ς',
        'i̇stanbul',
        '𝒜',
        '𝒜road',
        '٣',
        'drive 𠀋',
        'neonlight',
        'level',
        '12',
    ]
    for (const keywords of searches) {
        const want = runQuery(byItem, { keywords, filters: [] })
        const got = runQuery(searchable, { keywords, filters: [] })
        assert.ok(want.length > 0, `"${keywords}" is found (test self-check)`)
        assert.is(got.length, want.length, `"${keywords}" count`)
        assert.equal(names(got, 0), names(want, 0), `"${keywords}"`)
    }
})

test('parts costly to mark, more of them than a list keeps sets of: asked again after theirs were dropped', () => {
    // Each item's text holds a word per letter, `a123`, `b123`…: the part `a1` is in over a thousand words,
    // each of one item, which costs as much to mark as a common word, and there are 260 such parts.
    const letters = [...'abcdefghijklmnopqrstuvwxyz']
    const list = Array.from({ length: 2000 }, (_, at) => {
        const item = level(at)
        const description = letters.map((letter) => `${letter}${at}`).join(' ')
        return { ...item, fields: { ...item.fields, description: { en: description } } }
    })
    const index = SearchIndex.of(list)
    const searchable = ChunkedList.of(list)
    makeSearchable(searchable, () => index)
    const byItem = ChunkedList.of(list)
    const parts = letters.flatMap((letter) =>
        Array.from({ length: 10 }, (_, digit) => `${letter}${digit}`),
    )
    for (const round of [1, 2])
        for (const keywords of [...parts, ...parts.slice(0, 20).map((part) => `${part} neon`)]) {
            const want = runQuery(byItem, { keywords, filters: [] })
            const got = runQuery(searchable, { keywords, filters: [] })
            assert.is(got.length, want.length, `"${keywords}" count, round ${round}`)
            assert.equal(names(got, 1), names(want, 1), `"${keywords}" page 1, round ${round}`)
        }
})

test.run()
