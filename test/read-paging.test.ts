/**
 * E9 paging over real HTTP: page mode (levels, 20 a page) and cursor mode (replays). The example
 * folder has too few items to fill a page, so this file serves a copy of it with generated levels
 * and replays added.
 */
import { copyFile, mkdir, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { listedRecords } from './support/content-files.js'
import { assertJsonError, names } from './support/http.js'
import { listClient, nameList, type List } from './support/lists.js'
import { assertShape } from './support/response-shapes.js'
import { copyContent, getJson, startTestServer, type TestServer } from './support/server.js'

const test = suite('read: paging of lists')
let server: TestServer
let folder: string

const extraLevels = 38
const extraReplays = 42
const pad = (index: number) => String(index).padStart(2, '0')

/** Generated levels reuse first-steps' resources; ratings 1–38, one a minute in 2025. */
const addLevels = async (root: string) => {
    for (let index = 1; index <= extraLevels; index++) {
        const folder = join(root, 'levels', `generated-${pad(index)}`)
        await mkdir(folder)
        for (const file of ['cover.png', 'bgm.mp3', 'data.json'])
            await copyFile(join(root, 'levels', 'first-steps', file), join(folder, file))
        await writeFile(
            join(folder, 'item.yaml'),
            [
                `title: Generated level ${pad(index)}`,
                `rating: ${index}`,
                `time: 2025-01-01T00:${pad(index)}:00Z`,
                `meta: { genre: ${index % 2 ? 'pop' : 'rock'} }`,
            ].join('\n'),
        )
    }
}

/** Generated replays come in pairs with the same time, so paging must not rely on times alone. */
const addReplays = async (root: string) => {
    for (let index = 1; index <= extraReplays; index++) {
        const folder = join(root, 'replays', `generated-${pad(index)}`)
        await mkdir(folder)
        for (const file of ['data.json', 'configuration.json'])
            await copyFile(join(root, 'replays', 'alice-first-steps', file), join(folder, file))
        await writeFile(
            join(folder, 'item.yaml'),
            [
                `title: ${index <= 25 ? 'Marathon' : 'Sprint'} run ${pad(index)}`,
                'level: first-steps',
                `time: 2025-02-01T00:${pad(Math.ceil(index / 2))}:00Z`,
            ].join('\n'),
        )
    }
}

test.before(async () => {
    assertShape('ServerMessage', {})
    folder = await copyContent()
    await addLevels(folder)
    await addReplays(folder)
    server = await startTestServer({ content: folder, address: 'https://example.test/shelf' })
})

test.after(async () => {
    await server?.stop()
    if (folder) await rm(folder, { recursive: true, force: true })
})

const { list } = listClient(() => server)

/** Every page of a page-mode list, fetched page by page until pageCount. */
const allPages = async (query: Record<string, string> = {}) => {
    const first = await list('level', query)
    const pages = [first]
    for (let page = 1; page < first.pageCount; page++) {
        const body = await list('level', { ...query, page: String(page) })
        assert.is(body.pageCount, first.pageCount, `page ${page} has the same pageCount`)
        pages.push(body)
    }
    return pages
}

/** Every page of a cursor-mode list: follows `cursor` until it is absent (with a bound). */
const followCursor = async (query: Record<string, string> = {}) => {
    const pages: List[] = []
    let cursor: string | undefined
    do {
        const body = await list('replay', cursor === undefined ? query : { ...query, cursor })
        assert.ok(body.pageCount < 0, 'cursor mode: pageCount < 0')
        pages.push(body)
        cursor = body.cursor
        assert.ok(pages.length <= 20, 'the cursor chain ends')
    } while (cursor !== undefined)
    return pages
}

test('self-check: the generated folder has more than two pages of levels and replays', () => {
    assert.is(listedRecords('level', folder).length, 6 + extraLevels)
    assert.is(listedRecords('replay', folder).length, 3 + extraReplays)
})

test('page mode: 20 levels a page, pageCount = ceil(n / 20), pages together are the whole list in order', async () => {
    const expected = nameList(listedRecords('level', folder))
    const pages = await allPages()
    assert.is(pages[0]!.pageCount, Math.ceil(expected.length / 20))
    assert.is(pages.length, 3)
    assert.equal(
        pages.map((page) => page.items.length),
        [20, 20, expected.length - 40],
    )
    assert.equal(
        pages.flatMap((page) => names(page.items)),
        expected,
    )
    for (const page of pages) assert.is(page.cursor, undefined)
})

test('page mode: a page beyond the end is empty, with the same pageCount', async () => {
    const { pageCount } = await list('level')
    for (const page of [pageCount, pageCount + 1, 1000]) {
        const body = await list('level', { page: String(page) })
        assert.equal(body.items, [], `page=${page}`)
        assert.is(body.pageCount, pageCount, `page=${page}`)
    }
})

test('page mode: page=0 is the same as no page', async () => {
    assert.equal(await list('level', { page: '0' }), await list('level'))
    assert.equal(
        await list('level', { page: '0', type: 'quick', keywords: 'generated' }),
        await list('level', { type: 'quick', keywords: 'generated' }),
    )
})

test('page mode: a page that is not a number counted from 0 is a 400 with a message', async () => {
    for (const page of ['-1', 'abc']) {
        const response = await getJson(`${server.root}/levels/list?page=${page}`)
        assertJsonError(response, 400, `page=${page}`)
    }
})

test('page mode: searches page too, and each page repeats the query', async () => {
    const byRating = [...listedRecords('level', folder)].sort(
        (a, b) =>
            (b.fields.rating as number) - (a.fields.rating as number) ||
            (b.time ?? -Infinity) - (a.time ?? -Infinity) ||
            (a.name < b.name ? -1 : 1),
    )
    const sorted = await allPages({ type: 'advanced', sort: 'rating' })
    assert.equal(
        sorted.flatMap((page) => names(page.items)),
        nameList(byRating),
    )

    const generated = nameList(
        listedRecords('level', folder).filter((record) => record.name.startsWith('generated-')),
    )
    const quick = await allPages({ type: 'quick', keywords: 'generated level' })
    assert.is(quick[0]!.pageCount, 2)
    assert.equal(
        quick.flatMap((page) => names(page.items)),
        generated,
    )

    const rock = nameList(
        listedRecords('level', folder).filter(
            (record) => (record.fields.meta as { genre?: string } | undefined)?.genre === 'rock',
        ),
    )
    const rockPages = await allPages({ type: 'advanced', genre: 'rock' })
    assert.is(rockPages[0]!.pageCount, Math.ceil(rock.length / 20))
    assert.equal(
        rockPages.flatMap((page) => names(page.items)),
        rock,
    )
})

test('page mode: the configuration filter changes pageCount', async () => {
    const kept = nameList(
        listedRecords('level', folder).filter((record) => (record.fields.rating as number) >= 20),
    )
    const pages = await allPages({ hideBelow: '20' })
    assert.is(pages[0]!.pageCount, Math.ceil(kept.length / 20))
    assert.equal(
        pages.flatMap((page) => names(page.items)),
        kept,
    )
})

test('cursor mode: replays page by cursor until it is absent, 20 a page, nothing repeated or lost', async () => {
    const expected = nameList(listedRecords('replay', folder))
    const pages = await followCursor()
    assert.equal(
        pages.map((page) => page.items.length),
        [20, 20, expected.length - 40],
    )
    const seen = pages.flatMap((page) => names(page.items))
    assert.is(new Set(seen).size, seen.length, 'no replay twice')
    assert.equal(seen, expected)
    for (const page of pages) assert.is(page.pageCount, -1)
    assert.is(pages.at(-1)!.cursor, undefined)
})

test('cursor mode: a search follows its cursor with the query repeated', async () => {
    const expected = nameList(
        listedRecords('replay', folder).filter((record) =>
            String(record.fields.title).startsWith('Marathon'),
        ),
    )
    assert.is(expected.length, 25, 'self-check')
    const pages = await followCursor({ type: 'quick', keywords: 'marathon' })
    assert.equal(
        pages.map((page) => page.items.length),
        [20, 5],
    )
    assert.equal(
        pages.flatMap((page) => names(page.items)),
        expected,
    )
})

test('cursor mode: a cursor the server never handed out is a 400 with a message', async () => {
    const forged = [
        'not-a-cursor',
        Buffer.from('{"offset":20}').toString('base64url'),
        Buffer.from('[-5,"x"]').toString('base64url'),
        Buffer.from('["20","x"]').toString('base64url'),
        '%00',
    ]
    for (const cursor of forged) {
        const response = await getJson(
            `${server.root}/replays/list?cursor=${encodeURIComponent(cursor)}`,
        )
        assertJsonError(response, 400, `cursor=${cursor}`)
    }
})

test.run()
