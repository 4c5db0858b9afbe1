/**
 * Quick-search ranking over many matches, page by page: a page is worked out only as far as it
 * needs, so every page boundary (inside a rank and across ranks) must give the order a full
 * ranking gives. The expected order is worked out here from the files' titles and descriptions.
 */
import type { LevelItem, ServerItemList } from '@sonolus/core'
import { rm } from 'node:fs/promises'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { tinyMp3, tinyPng, writeTree, type FileTree } from './support/fixtures.js'
import type { ReloadReport } from '../src/server.js'
import { copyContent, getJson, startTestServer, type TestServer } from './support/server.js'

const test = suite('search ranking')

let content: string
let server: TestServer

/** Five kinds of level, in turn: the phrase in the title, in the description, its words apart, parts of words, neither. */
const levels = Array.from({ length: 100 }, (_, index) => {
    const kinds: [title: string, description: string][] = [
        [`Zephyr Quartz ${index}`, 'A plain chart.'],
        [`Song ${index}`, 'A zephyr quartz tune.'],
        [`Quartz and Zephyr ${index}`, 'A plain chart.'],
        [`Zephyrs Quartzite ${index}`, 'A plain chart.'],
        [`Nothing ${index}`, 'A plain chart.'],
    ]
    const [title, description] = kinds[index % 5]!
    // Newer with each index: the list shows the last first.
    return { name: `ranked-${index}`, title, description, time: Date.UTC(2026, 0, 1, 0, index) }
})

/**
 * A phrase of two words few items hold: in a title, in a description, its words apart. Fewer
 * than a block of slots (32) per item found, so its junctions are read item by item.
 */
const rare = [
    ['Velvet Orbit', 'A plain chart.'],
    ['Song', 'A velvet orbit tune.'],
    ['Orbit of Velvet', 'A plain chart.'],
].map(([title, description], index) => ({
    name: `rare-${index}`,
    title: title!,
    description: description!,
    time: Date.UTC(2026, 0, 2, 0, index),
}))
levels.push(...rare)

const files = (): FileTree =>
    Object.fromEntries(
        levels.flatMap(({ name, title, description, time }, index) => [
            [
                `levels/${name}/item.yaml`,
                `title: ${title}\ndescription: ${description}\nrating: 5\ntime: ${new Date(time).toISOString()}\n`,
            ],
            [`levels/${name}/cover.png`, tinyPng(index, 1, 2)],
            [`levels/${name}/bgm.mp3`, tinyMp3(index)],
            [`levels/${name}/data.json`, JSON.stringify({ bgmOffset: 0, entities: [] })],
        ]),
    )

const wordsOf = (text: string) => text.toLowerCase().split(/[^\p{L}\p{N}]+/u)

/** The ranking rule, from the files: phrase in the title, phrase anywhere, every term a whole word, the rest. */
const expected = (keywords: string) => {
    const terms = keywords.toLowerCase().split(' ')
    const phrase = terms.join(' ')
    const rankOf = ({ title, description }: (typeof levels)[number]) => {
        const text = `${title}\n${description}`.toLowerCase()
        if (!terms.every((term) => text.includes(term))) return undefined
        if (title.toLowerCase().includes(phrase)) return 0
        if (text.includes(phrase)) return 1
        return terms.every((term) => wordsOf(text).includes(term)) ? 2 : 3
    }
    return levels
        .map((level) => ({ level, rank: rankOf(level) }))
        .filter(
            (entry): entry is { level: (typeof levels)[number]; rank: number } =>
                entry.rank !== undefined,
        )
        .sort((a, b) => a.rank - b.rank || b.level.time - a.level.time)
        .map(({ level }) => level.name)
}

const served = async (keywords: string) => {
    const names: string[] = []
    let pageCount = 1
    for (let page = 0; page < pageCount; page++) {
        const { status, body } = await getJson<ServerItemList<LevelItem>>(
            `${server.root}/levels/list?type=quick&keywords=${encodeURIComponent(keywords)}&page=${page}`,
        )
        assert.is(status, 200)
        pageCount = body.pageCount
        names.push(...body.items.map((item) => item.name))
    }
    return names
}

test.before(async () => {
    content = await copyContent()
    await writeTree(content, files())
    server = await startTestServer({ content, watch: true })
})

test.after(async () => {
    await server?.stop()
    if (content) await rm(content, { recursive: true, force: true })
})

// Broad searches too: a single letter, alone or beside words, is found by each item's characters.
for (const keywords of [
    'zephyr quartz',
    'Zephyr Quartz',
    'zephyr qu',
    'quartz',
    'zephyr a',
    'z',
    'zephyr z',
    'z quartz',
    'a zephyr quartz',
    'zephyr q',
    'r quartz',
    'plain chart.',
    // Parts too short for trigrams, alone and together: found through the words holding them.
    'yr',
    'yr tz',
    'zephyr tz',
    'quartz yr',
    // Phrases of common words, a one-letter word on either side or none: held by many items
    // (`a zephyr`, `quartz t`), or by none though most items hold both words (`a quartz`, `chart
    // zephyr`, `plain z`), found by the junctions of each item's text.
    'a zephyr',
    'quartz t',
    'a quartz',
    'chart zephyr',
    'plain z',
]) {
    test(`"${keywords}": every page in the order of a full ranking`, async () => {
        const want = expected(keywords)
        assert.ok(
            want.length > 20,
            `the search spans pages (test self-check: ${want.length} matches)`,
        )
        assert.equal(await served(keywords), want)
    })
}

test('a phrase few items hold ranks as a full ranking does, its junctions read item by item', async () => {
    for (const keywords of ['velvet orbit', 'orbit velvet', 'Velvet Orbit']) {
        const want = expected(keywords)
        assert.ok(
            want.length > 1 && want.length < 4,
            `few matches (test self-check: ${want.length})`,
        )
        assert.equal(await served(keywords), want, keywords)
    }
    // Title first, then description, then the words apart, though the newest is last.
    assert.equal(await served('velvet orbit'), ['rare-0', 'rare-1', 'rare-2'])
})

test('a later page asked first gives the same items as after the pages before it', async () => {
    const want = expected('zephyr quartz')
    const { body } = await getJson<ServerItemList<LevelItem>>(
        `${server.root}/levels/list?type=quick&keywords=zephyr+quartz&page=3`,
    )
    assert.equal(
        body.items.map((item) => item.name),
        want.slice(60, 80),
    )
})

test('a short part finds the words of items added after it was first searched', async () => {
    // The index keeps the words holding a short part it was asked for, and looks only at the words added since.
    const names = async (keywords: string) =>
        (
            await getJson<ServerItemList<LevelItem>>(
                `${server.root}/levels/list?type=quick&keywords=${encodeURIComponent(keywords)}`,
            )
        ).body.items.map((item) => item.name)
    assert.equal(await names('qx'), [])
    assert.equal(await names('桜'), [])
    // The level's files first, its item file last: the reload naming the item file serves it whole.
    const served = new Promise<void>((resolve) => {
        const listener = (report: ReloadReport) => {
            if (!report.paths.some((path) => path.endsWith('late-comer/item.yaml'))) return
            server.events.off('reload', listener)
            resolve()
        }
        server.events.on('reload', listener)
    })
    await writeTree(content, {
        'levels/late-comer/cover.png': tinyPng(500, 1, 2),
        'levels/late-comer/bgm.mp3': tinyMp3(500),
        'levels/late-comer/data.json': JSON.stringify({ bgmOffset: 0, entities: [] }),
    })
    await writeTree(content, {
        'levels/late-comer/item.yaml': 'title: Qxylo 夜桜\ndescription: A late chart.\nrating: 5\n',
    })
    await served
    assert.equal(await names('qx'), ['late-comer'])
    assert.equal(await names('桜'), ['late-comer'])
    assert.equal(await names('xy 桜'), ['late-comer'])
})

test.run()
