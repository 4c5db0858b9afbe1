import { test } from 'uvu'
import * as assert from 'uvu/assert'
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

test.run()
