import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { ChunkedList } from '../src/util/chunked-list.js'
import { patchSorted, sortedChanges } from '../src/util/sorted-list.js'

type Entry = { key: number }
const byKey = (a: Entry, b: Entry) => a.key - b.key
const keysOf = (list: readonly Entry[]) => list.map((entry) => entry.key)

/** A small seeded generator (mulberry32): every run draws the same cases, and a failure names its seed. */
const randomFrom = (seed: number) => () => {
    seed = (seed + 0x6d2b79f5) | 0
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

/** A sorted list of distinct keys drawn from 0…range, a few removed from it and a few new ones added. */
const drawCase = (seed: number, size: number, range: number) => {
    const random = randomFrom(seed)
    const keys = new Set<number>()
    while (keys.size < size) keys.add(Math.floor(random() * range))
    const list = [...keys].sort((a, b) => a - b).map((key) => ({ key }))
    const removed = list.filter(() => random() < 0.1)
    const added: Entry[] = []
    for (let count = Math.floor(random() * 12); count > 0; count--) {
        const key = Math.floor(random() * range) + 0.5
        if (!added.some((entry) => entry.key === key)) added.push({ key })
    }
    return { list, removed, added }
}

test('patchSorted equals removing, adding and sorting again, over many drawn cases', () => {
    for (let seed = 1; seed <= 300; seed++) {
        const { list, removed, added } = drawCase(seed, seed % 40, 60)
        const expected = [...list.filter((entry) => !removed.includes(entry)), ...added].sort(byKey)
        const patched = patchSorted(list, removed, added, byKey)
        assert.equal(keysOf(patched), keysOf(expected), `seed ${seed}`)
        for (const entry of added)
            assert.ok(patched.includes(entry), `seed ${seed}: the added entry itself`)
    }
})

test('patchSorted keeps the list itself when nothing changes, and leaves it untouched otherwise', () => {
    const list = [1, 2, 3].map((key) => ({ key }))
    assert.is(patchSorted(list, [], [], byKey), list)
    const patched = patchSorted(list, [list[1]!], [{ key: 0 }, { key: 9 }], byKey)
    assert.equal(keysOf(patched), [0, 1, 3, 9])
    assert.equal(keysOf(list), [1, 2, 3])
})

test('patchSorted empties a list and fills an empty one', () => {
    const list = [1, 2, 3].map((key) => ({ key }))
    assert.equal(patchSorted(list, list, [], byKey), [])
    assert.equal(keysOf(patchSorted([], [], [{ key: 5 }, { key: 4 }], byKey)), [4, 5])
})

test('patchSorted joins more runs than one call of the engine takes', () => {
    const list = Array.from({ length: 20_000 }, (_, index) => ({ key: index * 2 }))
    // Every other entry removed and one added between each pair: some 15,000 runs.
    const removed = list.filter((_, index) => index % 4 === 0)
    const added = list
        .filter((_, index) => index % 3 === 0)
        .map((entry) => ({ key: entry.key + 1 }))
    const patched = patchSorted(list, removed, added, byKey)
    const expected = [...list.filter((entry) => !removed.includes(entry)), ...added].sort(byKey)
    assert.equal(keysOf(patched), keysOf(expected))
})

test('sortedChanges finds what patchSorted changed, by identity', () => {
    for (let seed = 1; seed <= 300; seed++) {
        const { list, removed, added } = drawCase(seed, seed % 40, 60)
        const changes = sortedChanges(list, patchSorted(list, removed, added, byKey), byKey)
        assert.equal(keysOf(changes.removed), keysOf(removed), `seed ${seed}: removed`)
        assert.equal(keysOf(changes.added), keysOf([...added].sort(byKey)), `seed ${seed}: added`)
    }
})

test('sortedChanges counts an entry read again at its place as removed and added', () => {
    const before = [1, 2, 3].map((key) => ({ key }))
    const edited = { key: 2 }
    const after = [before[0]!, edited, before[2]!]
    const changes = sortedChanges(before, after, byKey)
    assert.equal(changes.removed, [before[1]])
    assert.is(changes.added[0], edited)
    assert.equal(sortedChanges(before, before, byKey), { removed: [], added: [] })
})

/** Every way a page, a section or a search reads a chunked list, against the array it stands for. */
const assertReadsAs = (list: ChunkedList<Entry>, expected: readonly Entry[], context: string) => {
    assert.is(list.length, expected.length, `${context}: length`)
    assert.equal(keysOf([...list]), keysOf(expected), `${context}: in order`)
    for (const position of [0, 1, 511, 512, 513, expected.length - 1, expected.length, -1])
        assert.is(list.at(position)?.key, expected[position]?.key, `${context}: at ${position}`)
    for (const [start, end] of [
        [0, 20],
        [500, 530],
        [1000, 2100],
        [-30, undefined],
        [40, 10],
    ])
        assert.equal(
            keysOf(list.slice(start, end)),
            keysOf(expected.slice(start, end)),
            `${context}: slice ${start}…${end}`,
        )
    const middle = expected[expected.length >> 1]?.key
    assert.is(
        list.findIndex((entry) => entry.key === middle),
        expected.findIndex((entry) => entry.key === middle),
        `${context}: findIndex`,
    )
    assert.equal(keysOf(list.toArray()), keysOf(expected), `${context}: as one array`)
}

test('a chunked list patched version after version reads as patchSorted makes it', () => {
    const random = randomFrom(7)
    const start = drawCase(7, 3000, 100_000).list
    let expected: readonly Entry[] = start
    let list = ChunkedList.of(start)
    let nextKey = -1
    for (let step = 0; step < 400; step++) {
        const removed = expected.filter(() => random() < 2 / expected.length)
        // New entries in front (newest first), anywhere, and an entry read again at its place.
        const added = [{ key: nextKey-- }, { key: Math.floor(random() * 100_000) + 0.5 }]
        if (removed[0] && random() < 0.5) added.push({ key: removed[0].key })
        // Now and then a change too large to make item by item.
        if (step % 100 === 50)
            for (let count = 0; count < 200; count++) added.push({ key: random() * 100_000 + 0.25 })
        const before = list
        const beforeKeys = keysOf([...before])
        list = list.patched(removed, added, byKey)
        expected = patchSorted(expected, removed, added, byKey)
        assert.equal(
            keysOf([...before]),
            beforeKeys,
            `step ${step}: the version before is untouched`,
        )
        if (step % 20 === 0 || step % 100 === 50) assertReadsAs(list, expected, `step ${step}`)
    }
    assertReadsAs(list, expected, 'the last step')
    for (const entry of expected.slice(0, 50))
        assert.ok(list.toArray().includes(entry), 'the entries themselves')
})

test('a chunked list keeps itself when nothing changes, empties and fills again', () => {
    const entries = [3, 1, 2].map((key) => ({ key })).sort(byKey)
    const list = ChunkedList.of(entries)
    assert.is(list.patched([], [], byKey), list)
    const emptied = list.patched(entries, [], byKey)
    assertReadsAs(emptied, [], 'emptied')
    assertReadsAs(
        emptied.patched([], [{ key: 5 }, { key: 4 }], byKey),
        [{ key: 4 }, { key: 5 }],
        'filled',
    )
    assertReadsAs(
        ChunkedList.of<Entry>().patched([], [{ key: 1 }], byKey),
        [{ key: 1 }],
        'from none',
    )
})

test.run()
