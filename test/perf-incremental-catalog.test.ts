/**
 * A catalog built from the one before it, change by change, must be the catalog built from
 * scratch: the same items, lists, problems, leaderboards, author sections, sorted lists and
 * quick-search answers. Random edits of a small folder (items coming, going and breaking;
 * engines and levels changing validity under the items that use them; drafts; a post held by a
 * folder and by a `.md` file at once) are applied as the content state hands them over; then the
 * same on a folder of a few thousand levels, whose lists run to several chunks.
 */
import { setImmediate as nextTurn } from 'node:timers/promises'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { Catalog } from '../src/catalog/catalog.js'
import { unitKeyOfPath, unitOf } from '../src/content/content-state.js'
import { LayeredMap } from '../src/util/layered-map.js'
import { TurnSlices } from '../src/util/turn-slices.js'
import { runQuery } from '../src/catalog/search.js'
import type { ContentType } from '../src/content/item-types.js'
import type { ItemRecord, LeaderboardRecord, LoadedContent } from '../src/content/load.js'
import { normalizeFields } from '../src/content/records.js'
import { normalizeServerSettings } from '../src/content/server-settings.js'

const test = suite('perf: incremental catalog')

/** A small deterministic random generator (mulberry32), so a failure can be replayed. */
const randomFrom = (seed: number) => () => {
    seed = (seed + 0x6d2b79f5) | 0
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

const words = ['neon', 'dream', 'night', 'drive', 'rain', 'échos', '夢', 'lullaby', 'road']
const plurals: Record<ContentType, string> = {
    post: 'posts',
    playlist: 'playlists',
    level: 'levels',
    skin: 'skins',
    background: 'backgrounds',
    effect: 'effects',
    particle: 'particles',
    engine: 'engines',
    replay: 'replays',
}

type Step = { key: string; record: ItemRecord | null | undefined }

/** `levelNames`: how many level names the changes draw from (and replays point at one more). */
const makeRandom = (seed: number, levelNames = 12) => {
    const random = randomFrom(seed)
    const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)]!
    const chance = (p: number) => random() < p
    let edits = 0
    const text = () => `${pick(words)} ${pick(words)}${chance(0.2) ? '-mix' : ''}`

    const record = (
        type: ContentType,
        name: string,
        fields: Record<string, unknown>,
        leaderboards: LeaderboardRecord[] = [],
    ): ItemRecord => ({
        type,
        name,
        file: `${plurals[type]}/${name}/item.yaml`,
        fields: normalizeFields(type, {
            title: chance(0.3) ? { en: text(), ja: text() } : text(),
            author: chance(0.8)
                ? pick(['alice', 'bob', { en: 'carol', ja: 'キャロル' }])
                : undefined,
            description: chance(0.5) ? text() : undefined,
            rating: Math.floor(random() * 40),
            time: chance(0.9) ? Math.floor(random() * 50) * 1000 : undefined,
            draft: chance(0.05),
            unlisted: chance(0.05),
            tags: chance(0.3) ? [pick(words)] : [],
            ...fields,
        }),
        locateReference: () => ({}),
        resources: {},
        comments: [],
        leaderboards,
    })

    /** One random change of a unit: a new version of its record, a broken one (null), or none (gone). */
    const step = (): Step => {
        edits++
        const type = pick([
            'level',
            'level',
            'level',
            'engine',
            'skin',
            'playlist',
            'replay',
            'post',
        ] as const)
        const name = `${type}-${Math.floor(random() * (type === 'level' ? levelNames : 3))}`
        const key = type === 'post' && chance(0.5) ? `posts/${name}.md` : `${plurals[type]}/${name}`
        if (chance(0.15)) return { key, record: undefined }
        if (chance(0.1)) return { key, record: null }
        const level = () => `level-${Math.floor(random() * (levelNames + 1))}`
        switch (type) {
            case 'level':
                return {
                    key,
                    record: record(
                        type,
                        name,
                        {
                            engine: `engine-${Math.floor(random() * 4)}`,
                            useSkin: chance(0.5)
                                ? { useDefault: false, item: `skin-${Math.floor(random() * 4)}` }
                                : undefined,
                        },
                        leaderboardsOf(name),
                    ),
                }
            case 'engine':
                return {
                    key,
                    record: record(type, name, { skin: `skin-${Math.floor(random() * 4)}` }),
                }
            case 'playlist':
                return { key, record: record(type, name, { levels: [level(), level()] }) }
            case 'replay':
                return { key, record: record(type, name, { level: level() }) }
            default:
                return { key, record: record(type, name, {}) }
        }
    }

    const leaderboardsOf = (name: string): LeaderboardRecord[] =>
        chance(0.3)
            ? [
                  {
                      name: 'top',
                      file: `levels/${name}/leaderboards/top.yaml`,
                      title: 'Top',
                      records: [
                          {
                              name: '1',
                              rank: '1',
                              player: 'p',
                              value: '1',
                              replays: [`replay-${Math.floor(random() * 4)}`],
                          },
                      ],
                  },
              ]
            : []

    return { step, chance, edits: () => edits }
}

/** Settings with a hand-picked section, in either fallback locale (which orders titles). */
const settingsIn = (fallbackLocale: string) =>
    normalizeServerSettings(
        {
            title: 'test',
            fallbackLocale,
            levels: { sections: [{ title: 'Picked', items: ['level-1', 'level-7', 'level-99'] }] },
        },
        'server.yaml',
    )
const settings = { en: settingsIn('en'), ja: settingsIn('ja') }

/** The content state's side: numbered snapshots, each saying which units changed since the one before. */
const contentSeries = () => {
    let units = LayeredMap.of<string, ItemRecord | null>()
    let fallbacks = LayeredMap.of<string, ItemRecord>()
    let version = 0
    /** `serving`: the catalog of now, whose item under a changed unit's name is kept as its fallback, as the content state keeps it. */
    return (steps: Step[], locale: 'en' | 'ja' = 'en', serving?: Catalog): LoadedContent => {
        const changes = new Map<string, ItemRecord | null | undefined>()
        const kept = new Map<string, ItemRecord | undefined>()
        for (const { key, record } of steps) {
            changes.set(key, record)
            const { type, name } = unitOf(key)
            const served = serving?.get(type, name)
            kept.set(key, served && unitKeyOfPath(served.file) === key ? served : undefined)
        }
        units = units.with(changes)
        fallbacks = fallbacks.with(kept)
        return {
            settings: settings[locale],
            units,
            problems: [],
            version: ++version,
            changed: new Set(changes.keys()),
            fallbacks,
        }
    }
}

const types: ContentType[] = ['post', 'playlist', 'level', 'skin', 'engine', 'replay']
const names = (items: Iterable<ItemRecord>) => [...items].map((item) => item.name)
const sorts = [
    { by: 'title', order: 'asc' },
    { by: 'rating', order: 'desc' },
] as const
const queries = [
    'neon',
    'dream night',
    'ni',
    'night-',
    'échos',
    '夢',
    'level-1',
    'rain road',
    'zzz',
    'e',
    'n 1',
    '7',
]

/** Everything a request can read of a catalog, in a form two catalogs can be compared by. */
const view = (catalog: Catalog) => {
    const seen: Record<string, unknown> = {}
    for (const type of types) {
        seen[`${type} items`] = [...catalog.items[type].keys()].sort()
        seen[`${type} items are the records`] = [...catalog.items[type].values()]
            .map(
                (item) => `${item.name}:${item.fields.rating}:${JSON.stringify(item.fields.title)}`,
            )
            .sort()
        seen[`${type} listed`] = names(catalog.listed[type])
        for (const sort of sorts)
            seen[`${type} sorted ${sort.by}`] = names(catalog.sortedList(type, sort))
        // Every search read only after the next one ran: a result outlives the search arrays it was found in.
        const results = queries.map((keywords) =>
            runQuery(catalog.listed[type], { keywords, filters: [] }),
        )
        for (const keywords of queries)
            seen[`${type} search ${keywords}`] = names(
                runQuery(catalog.listed[type], { keywords, filters: [] }).slice(),
            )
        for (const [at, keywords] of queries.entries())
            assert.equal(
                names(results[at]!.slice()),
                seen[`${type} search ${keywords}`],
                `${type} "${keywords}" read after later searches`,
            )
        for (const keywords of queries) {
            seen[`${type} search ${keywords} by title`] = names(
                runQuery(catalog.sortedList(type, sorts[0]), {
                    keywords,
                    filters: [(item) => item.fields.rating > 10],
                }).slice(),
            )
        }
        for (const item of catalog.listed[type]) {
            seen[`${type} ${item.name} by author`] = names(catalog.byAuthor(item))
            seen[`${type} ${item.name} leaderboards`] = catalog
                .leaderboardsOf(item)
                .map((leaderboard) => leaderboard.name)
            seen[`${type} ${item.name} users`] = [...catalog.usersOf(item)].map(
                ([type, users]) => `${type}:${names(users)}`,
            )
        }
    }
    seen.problems = catalog.problems.map((problem) => JSON.stringify(problem)).sort()
    return seen
}

for (const seed of [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]) {
    // Every third run serves drafts, which changes what a draft's name resolves to.
    const options = { drafts: seed % 3 === 0 }
    test(`seed ${seed}${options.drafts ? ', drafts served' : ''}: a catalog built change by change is the catalog built from scratch`, () => {
        const { step, chance, edits } = makeRandom(seed)
        const next = contentSeries()
        let catalog = new Catalog(next(Array.from({ length: 40 }, step)), options)
        for (let round = 0; round < 60; round++) {
            // Most changes are one unit; some are bursts, as a checkout would make.
            const content = next(
                Array.from({ length: chance(0.8) ? 1 : 8 }, step),
                chance(0.9) ? 'en' : 'ja',
                catalog,
            )
            // Reading the catalog first builds its indexes, which the next one then carries on.
            view(catalog)
            catalog = new Catalog(content, options, catalog)
            assert.equal(
                view(catalog),
                view(new Catalog(content, options)),
                `after ${edits()} edits (round ${round})`,
            )
        }
    })
}

test('a folder whose lists run to several chunks: a catalog built change by change is the catalog built from scratch', () => {
    // Lists of a thousand levels and more are kept in chunks of about 512 (`ChunkedList`): single
    // changes patch a chunk, and bursts past 64 changes are merged whole.
    const { step, chance, edits } = makeRandom(17, 6000)
    const next = contentSeries()
    let catalog = new Catalog(next(Array.from({ length: 20_000 }, step)), { drafts: false })
    assert.ok(catalog.listed.level.length > 1024, `${catalog.listed.level.length} levels listed`)
    for (let round = 0; round < 30; round++) {
        const content = next(
            Array.from({ length: chance(0.8) ? 1 : chance(0.5) ? 8 : 100 }, step),
            'en',
            catalog,
        )
        view(catalog)
        catalog = new Catalog(content, { drafts: false }, catalog)
        assert.equal(
            view(catalog),
            view(new Catalog(content, { drafts: false })),
            `after ${edits()} edits (round ${round})`,
        )
    }
})

test('a catalog not made from the snapshot right before it is built from scratch', () => {
    const { step } = makeRandom(9)
    const next = contentSeries()
    const first = new Catalog(next(Array.from({ length: 30 }, step)), { drafts: false })
    next([step()])
    const skipped = next([step()])
    assert.equal(
        view(new Catalog(skipped, { drafts: false }, first)),
        view(new Catalog(skipped, { drafts: false })),
    )
})

test('an older snapshot keeps answering as it did after newer ones are made from it', () => {
    const { step } = makeRandom(11)
    const next = contentSeries()
    const old = new Catalog(next(Array.from({ length: 40 }, step)), { drafts: false })
    const seen = view(old)
    let catalog = old
    for (let round = 0; round < 20; round++)
        catalog = new Catalog(next([step(), step()]), { drafts: false }, catalog)
    assert.equal(view(old), seen)
})

test('search indexes built a slice at a time or on a worker answer as ones built at once: searched while they build, after, and carried on by the next catalog', async () => {
    const { step } = makeRandom(12)
    const next = contentSeries()
    const content = next(Array.from({ length: 400 }, step))
    const options = { drafts: false }
    const expected = view(new Catalog(content, options))

    // A slice of no time: a turn passes after every item, so some turns in, an index is part built.
    for (const turns of [1, 2, 3, 5, 8, 13, 21]) {
        const during = new Catalog(content, options)
        const building = during.buildSearchIndexesInSlices(new TurnSlices(0))
        for (let turn = 0; turn < turns; turn++) await nextTurn()
        assert.equal(view(during), expected, `searched ${turns} turns into the build`)
        await building
        assert.equal(view(during), expected, `searched after the build`)
    }

    // Searched before the worker's index comes: built here at once, the worker's left unused.
    const during = new Catalog(content, options)
    const building = during.buildSearchIndexes(new TurnSlices(0))
    assert.equal(view(during), expected, 'searched during the build on a worker')
    await building
    assert.equal(view(during), expected, 'searched after the build on a worker')

    // The worker's index, taken in whole, then added to by the next catalog.
    for (const build of ['buildSearchIndexesInSlices', 'buildSearchIndexes'] as const) {
        const built = new Catalog(content, options)
        await built[build]()
        assert.equal(view(built), expected, `${build}: built before any search`)
        const changed = next([step(), step(), step()], 'en', built)
        const carried = view(new Catalog(changed, options, built))
        assert.equal(carried, view(new Catalog(changed, options)), `${build}: carried`)
    }
})

/** A catalog's index of a type, or undefined until one is built or carried: read to see whose index it is. */
const searchIndexOf = (catalog: Catalog, type: ContentType) =>
    (catalog as unknown as { searchIndexes: Partial<Record<ContentType, object>> }).searchIndexes[
        type
    ]

test('catalogs made while the worker builds carry its index once it comes, with their own changes, and the one before stops building', async () => {
    const { step } = makeRandom(13)
    const next = contentSeries()
    const options = { drafts: false }
    const first = new Catalog(next(Array.from({ length: 400 }, step)), options)
    let current = first
    const building = first.buildSearchIndexes(new TurnSlices(0), () => current === first)
    const secondContent = next([step(), step(), step()], 'en', first)
    const second = new Catalog(secondContent, options, first)
    const thirdContent = next([step(), step()], 'en', second)
    const third = new Catalog(thirdContent, options, second)
    current = third
    await building
    assert.is(searchIndexOf(first, 'level'), undefined, 'the first stopped once no longer current')
    await third.buildSearchIndexes()
    // Read before any search, which would build an index in place.
    const carried = searchIndexOf(third, 'post')
    assert.ok(carried)
    assert.is(carried, searchIndexOf(first, 'post'), "the third carries the first's index")
    assert.is(carried, searchIndexOf(second, 'post'), "the second carries the first's index")
    assert.equal(view(third), view(new Catalog(thirdContent, options)))
    assert.equal(view(second), view(new Catalog(secondContent, options)))
})

test.run()
