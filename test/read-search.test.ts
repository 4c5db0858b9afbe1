/**
 * E9 searches over real HTTP against the example content: quick search, the declared advanced
 * search form with every filter kind, and the hideBelow configuration option. Expected names
 * are derived from the content files, not from the server.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import {
    listedRecords,
    localize,
    matchesKeywords,
    meta,
    titleMatches,
    type ContentRecord,
    type ContentType,
} from './support/content-files.js'
import { assertJsonError, names } from './support/http.js'
import { levels, listClient, nameList, type ItemInfo } from './support/lists.js'
import { assertShape } from './support/response-shapes.js'
import { startTestServer, type TestServer } from './support/server.js'

const test = suite('read: quick search, advanced search and configuration')
let server: TestServer

test.before(async () => {
    // Generating the response schemas blocks for seconds: do it before any socket is open.
    assertShape('ServerMessage', {})
    server = await startTestServer({ address: 'https://example.test/shelf' })
})

test.after(async () => {
    await server?.stop()
})

const { get, list, listNames } = listClient(() => server)

// ---------------------------------------------------------------- E9: quick search

const quick = (type: ContentType, keywords: string, extra: Record<string, string> = {}) =>
    listNames(type, { type: 'quick', keywords, ...extra })

/** What a quick search must return, as a set: every listed item with every word somewhere. */
const expectedQuick = (type: ContentType, keywords: string) =>
    nameList(listedRecords(type).filter((record) => matchesKeywords(record, keywords))).sort()

const quickCases: { what: string; type: ContentType; keywords: string; expected: string[] }[] = [
    { what: 'title', type: 'level', keywords: 'thunder', expected: ['thunder-road'] },
    { what: 'artists', type: 'level', keywords: 'volt riders', expected: ['thunder-road'] },
    {
        what: 'artists (two levels)',
        type: 'level',
        keywords: 'Neon Avenue',
        expected: ['city-lights', 'night-drive'],
    },
    { what: 'author', type: 'level', keywords: 'carol', expected: ['city-lights', 'morning-dew'] },
    { what: 'tag title', type: 'level', keywords: 'beginner', expected: ['first-steps'] },
    {
        what: 'tag text key',
        type: 'level',
        keywords: 'rock',
        expected: ['city-lights', 'thunder-road'],
    },
    { what: 'description', type: 'level', keywords: 'streetlights', expected: ['night-drive'] },
    { what: 'Markdown description', type: 'level', keywords: 'calm', expected: ['morning-dew'] },
    { what: 'Japanese title', type: 'level', keywords: '朝露', expected: ['morning-dew'] },
    {
        what: 'Japanese author',
        type: 'level',
        keywords: 'アリス',
        expected: ['first-steps', 'thunder-road'],
    },
    {
        what: 'Japanese description',
        type: 'level',
        keywords: 'アルペジオ',
        expected: ['night-drive'],
    },
    { what: 'upper case', type: 'level', keywords: 'THUNDER', expected: ['thunder-road'] },
    { what: 'AND of two words', type: 'level', keywords: 'carol rock', expected: ['city-lights'] },
    { what: 'AND across fields', type: 'level', keywords: 'neon night', expected: ['night-drive'] },
    {
        what: 'AND with no item having both',
        type: 'level',
        keywords: 'thunder carol',
        expected: [],
    },
    { what: 'a word nothing has', type: 'level', keywords: 'zzyzx', expected: [] },
    { what: 'a subtitle', type: 'skin', keywords: 'green on black', expected: ['neon-glow'] },
    { what: 'a post body', type: 'post', keywords: 'ordinary file', expected: ['welcome'] },
    {
        what: 'a replay subtitle',
        type: 'replay',
        keywords: 'first steps',
        expected: ['alice-first-steps', 'dave-first-steps'],
    },
]

for (const { what, type, keywords, expected } of quickCases) {
    test(`E9 quick search matches ${what}: ${type}s "${keywords}"`, async () => {
        assert.equal(expectedQuick(type, keywords), expected, 'the files say so (test self-check)')
        assert.equal((await quick(type, keywords)).sort(), expected)
    })
}

test('E9 quick search: the same words in either language find the same item', async () => {
    for (const record of levels()) {
        const title = record.fields.title as Record<string, string>
        for (const locale of ['en', 'ja']) {
            for (const localization of ['en', 'ja']) {
                const got = await quick('level', title[locale]!, { localization })
                assert.ok(
                    got.includes(record.name),
                    `"${title[locale]}" (localization=${localization}) finds ${record.name}`,
                )
            }
        }
    }
})

test('E9 quick search: empty keywords list everything', async () => {
    assert.equal(await quick('level', ''), nameList(levels()))
})

test('E9 quick search ranks title matches first', async () => {
    // "tap": Shelf Tap has it in its title; Shelf Hold, newer and so first in the plain list, only in tags and description.
    assert.equal(
        await listNames('engine'),
        ['shelf-hold', 'pjsekai', 'shelf-tap'],
        'the plain order (test self-check)',
    )
    assert.equal(await quick('engine', 'tap'), ['shelf-tap', 'shelf-hold'])
    assert.equal(await quick('engine', 'shelf tap'), ['shelf-tap', 'shelf-hold'])
    // In general: every item whose title holds the phrase comes before every item whose title does not.
    for (const [type, keywords] of [
        ['level', 'driv'],
        ['level', 'night'],
        ['post', 'night'],
        ['engine', 'shelf'],
    ] as const) {
        const got = await quick(type, keywords)
        assert.equal([...got].sort(), expectedQuick(type, keywords), `${type}s "${keywords}"`)
        const records = got.map((name) =>
            listedRecords(type).find((record) => record.name === name)!,
        )
        const flags = records.map((record) => titleMatches(record, keywords))
        assert.equal(
            flags,
            [...flags].sort((a, b) => Number(b) - Number(a)),
            `${type}s "${keywords}": title matches first (${got.join(', ')})`,
        )
    }
    // "driv": Night Drive (title) must come before City Lights ("Driving" in its description), though City Lights is newer.
    assert.equal(await quick('level', 'driv'), ['night-drive', 'city-lights'])
})

// ---------------------------------------------------------------- E9: advanced search

const advanced = (query: Record<string, string>) =>
    listNames('level', { type: 'advanced', ...query })
const rating = (record: ContentRecord) => record.fields.rating as number
const englishTitle = (record: ContentRecord) => localize(record.fields.title, 'en').toLowerCase()

test('E9 advanced: keywords option works like quick search', async () => {
    assert.equal(
        (await advanced({ keywords: 'neon avenue' })).sort(),
        expectedQuick('level', 'neon avenue'),
    )
    assert.equal((await advanced({ keywords: 'carol rock' })).sort(), ['city-lights'])
    assert.equal(await advanced({ keywords: '' }), nameList(levels()))
})

test('E9 advanced: the min-rating slider keeps levels rated at least the value', async () => {
    for (const min of [0, 10, 14, 15, 31, 32, 50]) {
        const expected = nameList(levels().filter((record) => rating(record) >= min))
        assert.equal(await advanced({ minRating: String(min) }), expected, `minRating=${min}`)
    }
    assert.equal(await advanced({ minRating: '14' }), [
        'city-lights',
        'night-drive',
        'thunder-road',
    ])
})

test('E9 advanced: the genre select filters by meta.genre; its ignore value filters nothing', async () => {
    for (const genre of ['pop', 'rock', 'electronic']) {
        const expected = nameList(levels().filter((record) => meta(record).genre === genre))
        assert.ok(expected.length > 0)
        assert.equal(await advanced({ genre }), expected, `genre=${genre}`)
    }
    // thunder-road has no genre at all: only the ignore value (and the default) keeps it.
    assert.equal(await advanced({ genre: 'any' }), nameList(levels()))
    assert.ok((await advanced({ genre: 'any' })).includes('thunder-road'))
    assert.equal(await advanced({}), nameList(levels()))
})

test('E9 advanced: the difficulty multi keeps levels of a selected difficulty; none or all filter nothing', async () => {
    for (const selected of [['easy'], ['hard'], ['easy', 'normal'], ['normal', 'hard']]) {
        const expected = nameList(
            levels().filter((record) => selected.includes(meta(record).difficulty as string)),
        )
        assert.equal(
            await advanced({ difficulty: selected.join(',') }),
            expected,
            `difficulty=${selected}`,
        )
    }
    assert.equal(await advanced({ difficulty: 'easy,normal' }), [
        'night-drive',
        'morning-dew',
        'first-steps',
    ])
    assert.equal(await advanced({ difficulty: 'easy,normal,hard' }), nameList(levels()))
    assert.equal(await advanced({ difficulty: '' }), nameList(levels()))
})

test('E9 advanced: the featured toggle keeps featured levels only when on', async () => {
    assert.equal(
        await advanced({ featured: '1' }),
        nameList(levels().filter((record) => meta(record).featured === true)),
    )
    assert.equal(await advanced({ featured: '1' }), ['night-drive', 'first-steps'])
    assert.equal(await advanced({ featured: '0' }), nameList(levels()))
})

test('E9 advanced: each sort order', async () => {
    assert.equal(await advanced({ sort: 'newest' }), nameList(levels()))
    assert.equal(
        await advanced({ sort: 'rating' }),
        nameList([...levels()].sort((a, b) => rating(b) - rating(a))),
    )
    assert.equal(
        await advanced({ sort: 'title' }),
        nameList([...levels()].sort((a, b) => (englishTitle(a) < englishTitle(b) ? -1 : 1))),
    )
    assert.equal(await advanced({ sort: 'rating' }), [
        'thunder-road',
        'city-lights',
        'night-drive',
        'morning-dew',
        'first-light',
        'first-steps',
    ])
    assert.equal(await advanced({ sort: 'title' }), [
        'city-lights',
        'first-light',
        'first-steps',
        'morning-dew',
        'night-drive',
        'thunder-road',
    ])
})

test('E9 advanced: filters combine (AND) and the sort applies to what is left', async () => {
    assert.equal(await advanced({ genre: 'pop', sort: 'rating' }), ['morning-dew', 'first-steps'])
    assert.equal(await advanced({ minRating: '10', difficulty: 'normal', sort: 'title' }), [
        'morning-dew',
        'night-drive',
    ])
    assert.equal(await advanced({ featured: '1', genre: 'electronic' }), ['night-drive'])
    assert.equal(await advanced({ featured: '1', genre: 'rock' }), [])
})

test('E9 advanced: a value an option cannot hold is a 400 naming the option', async () => {
    const bad: [string, Record<string, string>][] = [
        ['minRating', { minRating: '51' }],
        ['minRating', { minRating: '-1' }],
        ['minRating', { minRating: 'lots' }],
        ['genre', { genre: 'jazz' }],
        ['difficulty', { difficulty: 'easy,extreme' }],
        ['sort', { sort: 'popular' }],
    ]
    for (const [option, query] of bad) {
        const response = await get<{ message?: string }>(
            `/levels/list?${new URLSearchParams({ type: 'advanced', ...query })}`,
        )
        assertJsonError(response, 400, JSON.stringify(query))
        assert.ok(
            response.body.message!.includes(option),
            `the message names "${option}": ${response.body.message}`,
        )
    }
})

test('E9: an unknown form type lists everything', async () => {
    assert.equal(await listNames('level', { type: 'no-such-form' }), nameList(levels()))
    assert.equal(
        await listNames('level', { type: 'no-such-form', keywords: 'thunder', minRating: '99' }),
        nameList(levels()),
    )
})

// ---------------------------------------------------------------- configuration

test('configuration: hideBelow hides lower-rated levels from lists and searches', async () => {
    const kept = nameList(levels().filter((record) => rating(record) >= 20))
    assert.equal(kept, ['city-lights', 'thunder-road'], 'test self-check')
    assert.equal(await listNames('level', { hideBelow: '20' }), kept)
    assert.equal((await list('level', { hideBelow: '20' })).pageCount, 1)
    assert.equal(await listNames('level', { hideBelow: '20', type: 'quick', keywords: 'neon' }), [
        'city-lights',
    ])
    assert.equal(await listNames('level', { hideBelow: '20', type: 'advanced', sort: 'rating' }), [
        'thunder-road',
        'city-lights',
    ])
    assert.equal(await listNames('level', { hideBelow: '0' }), nameList(levels()))
    // Other types are not narrowed.
    assert.equal(await listNames('post', { hideBelow: '20' }), nameList(listedRecords('post')))
    assert.equal(
        await listNames('playlist', { hideBelow: '20' }),
        nameList(listedRecords('playlist')),
    )
})

test('configuration: hideBelow hides lower-rated levels from every section of the levels page', async () => {
    const { status, body } = await get<ItemInfo>('/levels/info?hideBelow=20')
    assert.is(status, 200)
    assertShape('ServerItemInfo', body)
    const shown = names(body.sections.flatMap((section) => section.items))
    assert.ok(shown.length > 0)
    for (const name of shown) {
        const record = levels().find((entry) => entry.name === name)!
        assert.ok(
            rating(record) >= 20,
            `${name} (rated ${rating(record)}) is shown in a section with hideBelow=20`,
        )
    }
    assert.equal(names(body.sections[0]!.items), ['city-lights', 'thunder-road'])
})

test('configuration: a bad hideBelow value is a 400 naming it', async () => {
    for (const value of ['51', '-5', 'abc']) {
        for (const path of ['/levels/list', '/levels/info']) {
            const response = await get<{ message?: string }>(`${path}?hideBelow=${value}`)
            assertJsonError(response, 400, `${path}?hideBelow=${value}`)
            assert.ok(response.body.message!.includes('hideBelow'), response.body.message)
        }
    }
})

test.run()
