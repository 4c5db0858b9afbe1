/**
 * A search index grows its arrays and posting lists as items come (at a start, and as reloads add
 * them), past the size its arrays start at: it must find and rank what a search item by item does.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import type { CatalogItem } from '../src/catalog/catalog.js'
import { makeSearchable, SearchIndex } from '../src/catalog/search-index.js'
import { ChunkedList } from '../src/util/chunked-list.js'
import { runQuery, type ItemSequence } from '../src/catalog/search.js'
import { IndexBuilder } from '../src/catalog/worker-built-index.js'
import { normalizeFields } from '../src/content/records.js'
import { TurnSlices } from '../src/util/turn-slices.js'

const test = suite('search index: grown past its first arrays')

const words = ['neon', 'dream', 'night', 'drive', 'rain', 'échos', '夢', 'lullaby', 'road', 'a']

const level = (at: number): CatalogItem => ({
    type: 'level',
    name: `level-${at}`,
    file: `levels/level-${at}/item.yaml`,
    fields: normalizeFields('level', {
        title: `${words[at % 10]} ${words[(at * 7) % 10]} ${at}`,
        description: `a ${words[(at * 3) % 10]} chart ${at % 97} & ${(at * 13) % 1000}`,
        rating: at % 40,
    }),
    locateReference: () => ({}),
    resources: {},
    comments: [],
    leaderboards: [],
})

/** More items and words than an index's first arrays hold, so that they grow. */
const count = 3000

const searches = [
    'neon',
    'dream lullaby',
    'a chart',
    'chart 42',
    'ra',
    '夢',
    'e',
    '12',
    '4',
    'road 7',
]

const namesOf = (items: ItemSequence) => items.slice(0, items.length).map((item) => item.name)

const searchedAlike = (list: CatalogItem[], index: SearchIndex) => {
    const searchable = ChunkedList.of(list)
    makeSearchable(searchable, () => index)
    const byItem = ChunkedList.of(list)
    for (const keywords of searches) {
        const want = namesOf(runQuery(byItem, { keywords, filters: [] }))
        const got = namesOf(runQuery(searchable, { keywords, filters: [] }))
        assert.ok(want.length > 0, `"${keywords}" finds something`)
        assert.equal(got, want, `"${keywords}"`)
    }
}

test('grown one item at a time', () => {
    const list = Array.from({ length: count }, (_, at) => level(at))
    const index = new SearchIndex()
    for (const item of list) index.add(item)
    searchedAlike(list, index)
})

test('built on a worker, then added to as a reload adds items', async () => {
    const first = Array.from({ length: count }, (_, at) => level(at))
    const builder = new IndexBuilder()
    // A slice of no time: the texts go to the worker in many messages.
    const index = await builder.build(first, new TurnSlices(0))
    builder.close()
    searchedAlike(first, index)
    // New words, and words the worker's lists hold, in items after the worker's slots.
    const added = Array.from({ length: 500 }, (_, at) => level(count + at))
    for (const item of added) index.add(item)
    searchedAlike([...added.reverse(), ...first], index)
})

test.run()
