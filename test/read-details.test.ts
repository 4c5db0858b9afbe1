/**
 * E12 (item details), E15/E18 (community, comments), E21–E23 (leaderboards) and E3 (level result
 * info) over real HTTP against the example content, on a server configured with a public address
 * under a path, plus one serving drafts.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import {
    contentTypes,
    listedRecords,
    localize,
    readComments,
    readLeaderboards,
    readRecords,
    readServerYaml,
    recordByName,
    shapePrefix,
    type ContentRecord,
    type ContentType,
} from './support/content-files.js'
import { assertJsonError, collectItems, names } from './support/http.js'
import { assertShape } from './support/response-shapes.js'
import { getJson, startTestServer, type TestServer } from './support/server.js'

type Item = { name: string; source?: string; title: string } & Record<string, unknown>
type Section = { title: string; itemType: string; items: Item[] }
type Details = {
    item: Item
    description?: string
    actions: unknown[]
    hasCommunity: boolean
    leaderboards: { name: string; title: string; description?: string }[]
    sections: Section[]
}
type Comment = { name: string; author: string; time: number; content: string; actions: unknown[] }
type LeaderboardRecord = { name: string; rank: string; player: string; value: string }

const test = suite('read: item details, community and leaderboards')
type Board = { name: string; title: unknown; description?: unknown }
const address = 'https://example.test/shelf'
let server: TestServer
let draftServer: TestServer

test.before(async () => {
    // Generating the response schemas blocks for seconds: do it before any socket is open.
    assertShape('ServerMessage', {})
    ;[server, draftServer] = await Promise.all([
        startTestServer({ address, readOnly: true }),
        startTestServer({ address, drafts: true, readOnly: true }),
    ])
})

test.after(async () => {
    await Promise.all([server?.stop(), draftServer?.stop()])
})

const get = <T>(path: string, on = server) => getJson<T>(`${on.root}${path}`)

/** Details pages are read by several tests: each is fetched and shape-checked once per run. */
const detailsCache = new Map<string, Promise<Details>>()

const details = (type: ContentType, name: string, query = '', on = server) => {
    const key = `${on.root}/${type}s/${name}${query}`
    let body = detailsCache.get(key)
    if (!body) {
        body = (async () => {
            const response = await get<Details>(`/${type}s/${name}${query}`, on)
            assert.is(
                response.status,
                200,
                `${type}s/${name}: ${JSON.stringify(response.body).slice(0, 300)}`,
            )
            assertShape(`${shapePrefix(type)}Details`, response.body)
            return response.body
        })()
        detailsCache.set(key, body)
    }
    return body
}

/** Every non-draft item of every type, unlisted ones included (they are reachable by name). */
const reachable = () =>
    contentTypes.flatMap((type) => readRecords(type).filter((record) => !record.draft))
const isHidden = (type: string, name: string) =>
    readRecords(type as ContentType).some(
        (record) => record.name === name && (record.draft || record.unlisted),
    )
const sectionItems = (body: Details, itemType: string) =>
    body.sections
        .filter((section) => section.itemType === itemType)
        .flatMap((section) => names(section.items))

// ---------------------------------------------------------------- E12

test('E12: every item of every type has a details page of its type', async () => {
    for (const record of reachable()) {
        const body = await details(record.type, record.name)
        assert.is(body.item.name, record.name)
        assert.is(body.item.title, localize(record.fields.title, 'en'))
        assert.ok(Array.isArray(body.actions))
    }
})

test('E12: source is the configured address on every item, nested engines, skins and levels included', async () => {
    let nested = 0
    for (const record of reachable()) {
        const body = await details(record.type, record.name)
        const items = collectItems(body)
        nested += items.length - 1
        for (const item of items)
            assert.is(item.source, address, `${record.type}s/${record.name}: ${item.name}.source`)
    }
    assert.ok(nested > 50, `nested items were checked too (${nested})`)
})

test('E12: titles and descriptions are localized; an item.md body is the description', async () => {
    for (const record of reachable()) {
        for (const locale of ['en', 'ja']) {
            const body = await details(record.type, record.name, `?localization=${locale}`)
            assert.is(
                body.item.title,
                localize(record.fields.title, locale),
                `${record.name} title (${locale})`,
            )
            if (record.fields.description === undefined)
                assert.is(body.description, undefined, `${record.name} has no description`)
            else
                assert.is(
                    body.description,
                    localize(record.fields.description, locale),
                    `${record.name} description (${locale})`,
                )
        }
    }
    const firstSteps = await details('level', 'first-steps')
    assert.ok(
        firstSteps.description?.startsWith('A gentle first level: eight taps on the beat'),
        firstSteps.description,
    )
    assert.ok(firstSteps.description?.includes('やさしい最初のレベルです。'))
    const welcome = await details('post', 'welcome')
    assert.ok(welcome.description?.startsWith('This server runs **Shelf**'), welcome.description)
    const patchNotes = await details('post', 'patch-notes', '?localization=ja')
    assert.ok(patchNotes.description?.startsWith('- 新しいレベル'), patchNotes.description)
})

test('E12: nested items are complete records: a level carries its engine, the engine its skin', async () => {
    const body = await details('level', 'night-drive')
    const level = body.item as Item & {
        engine: Item & { skin: Item }
        useSkin: { useDefault: boolean; item?: Item }
        useBackground: { useDefault: boolean; item?: Item }
        useEffect: { useDefault: boolean }
    }
    assert.is(level.engine.name, 'shelf-tap')
    assert.is(level.engine.skin.name, 'shelf-classic')
    assert.equal([level.useSkin.useDefault, level.useSkin.item?.name], [false, 'neon-glow'])
    assert.equal(
        [level.useBackground.useDefault, level.useBackground.item?.name],
        [false, 'sunset'],
    )
    assert.equal(level.useEffect, { useDefault: true })
    const playlist = (await details('playlist', 'starter-pack')).item as Item & { levels: Item[] }
    assert.equal(names(playlist.levels), recordByName('playlist', 'starter-pack').fields.levels)
    const replay = (await details('replay', 'bob-night-drive')).item as Item & { level: Item }
    assert.is(replay.level.name, 'night-drive')
})

test('E12: on a read-only server, hasCommunity is true exactly for items with comments', async () => {
    for (const record of reachable()) {
        const body = await details(record.type, record.name)
        assert.is(
            body.hasCommunity,
            readComments(record.type, record.name).length > 0,
            `${record.type}s/${record.name}`,
        )
    }
    assert.ok((await details('level', 'first-steps')).hasCommunity)
    assert.not.ok((await details('level', 'city-lights')).hasCommunity)
})

test('E12: leaderboards are listed with their localized titles', async () => {
    for (const record of reachable()) {
        for (const locale of ['en', 'ja']) {
            const body = await details(record.type, record.name, `?localization=${locale}`)
            // A level's written leaderboards, then the boards of plays server.yaml declares.
            const boards = record.type === 'level' ? (readServerYaml().boards as Board[]) : []
            const expected = [...readLeaderboards(record.type, record.name), ...boards].map(
                (leaderboard) => ({
                    name: leaderboard.name,
                    title: localize(leaderboard.title, locale),
                    ...(leaderboard.description === undefined
                        ? {}
                        : { description: localize(leaderboard.description, locale) }),
                }),
            )
            assert.equal(body.leaderboards, expected, `${record.type}s/${record.name} (${locale})`)
        }
    }
    const ja = await details('level', 'first-steps', '?localization=ja')
    assert.equal(ja.leaderboards, [
        { name: 'top', title: 'ハイスコア', description: 'アーケードスコアの上位' },
        { name: 'arcade', title: 'アーケードスコア' },
        { name: 'fewest-misses', title: 'ミスの少なさ' },
    ])
})

test('E12 sections: same author, playlists and replays of a level', async () => {
    const body = await details('level', 'first-steps')
    const alice = JSON.stringify(recordByName('level', 'first-steps').fields.author)
    const sameAuthor = listedRecords('level').filter(
        (record) => record.name !== 'first-steps' && JSON.stringify(record.fields.author) === alice,
    )
    assert.equal(sectionItems(body, 'level'), names(sameAuthor))
    assert.equal(sectionItems(body, 'level'), ['thunder-road'])
    const replays = listedRecords('replay').filter(
        (record) => record.fields.level === 'first-steps',
    )
    assert.equal(sectionItems(body, 'replay'), names(replays))
    assert.equal(sectionItems(body, 'replay'), ['dave-first-steps', 'alice-first-steps'])
    const playlists = listedRecords('playlist').filter((record) =>
        (record.fields.levels as string[]).includes('first-steps'),
    )
    assert.equal(sectionItems(body, 'playlist'), names(playlists))
})

test('E12 sections: the levels using an engine, newest first', async () => {
    for (const engine of readRecords('engine')) {
        const using = listedRecords('level').filter(
            (record) => record.fields.engine === engine.name,
        )
        const body = await details('engine', engine.name)
        const shown = sectionItems(body, 'level')
        assert.equal(
            shown,
            names(using).slice(0, Math.min(using.length, 5)),
            `levels using ${engine.name}`,
        )
    }
    assert.equal(sectionItems(await details('engine', 'shelf-tap'), 'level'), [
        'city-lights',
        'night-drive',
        'first-steps',
        'thunder-road',
    ])
    assert.equal(sectionItems(await details('engine', 'shelf-hold'), 'level'), ['morning-dew'])
})

test('E12 sections: unlisted and draft items never appear; an item is not its own neighbour', async () => {
    for (const record of reachable()) {
        const body = await details(record.type, record.name)
        for (const section of body.sections) {
            for (const item of section.items) {
                assert.not.ok(
                    isHidden(section.itemType, item.name),
                    `${record.type}s/${record.name} shows hidden ${section.itemType} ${item.name}`,
                )
                assert.not.ok(
                    section.itemType === record.type && item.name === record.name,
                    `${record.type}s/${record.name} lists itself`,
                )
            }
        }
    }
    // night-drive's author also made secret-garden, which is unlisted.
    assert.not.ok(
        JSON.stringify(await details('level', 'night-drive')).includes('"name":"secret-garden"'),
    )
    // and first-steps' author made the draft rough-sketch.
    assert.not.ok(
        JSON.stringify(await details('level', 'first-steps')).includes('"name":"rough-sketch"'),
    )
})

test('E12 sections: the hideBelow configuration hides lower-rated levels from details sections too', async () => {
    const rated = (name: string) => recordByName('level', name).fields.rating as number
    const using = listedRecords('level').filter(
        (record) => record.fields.engine === 'shelf-tap' && (record.fields.rating as number) >= 20,
    )
    const engine = await details('engine', 'shelf-tap', '?hideBelow=20')
    assert.equal(sectionItems(engine, 'level'), names(using))
    assert.equal(sectionItems(engine, 'level'), ['city-lights', 'thunder-road'])
    // city-lights' author also made morning-dew, rated 10.
    const cityLights = await details('level', 'city-lights', '?hideBelow=20')
    for (const name of sectionItems(cityLights, 'level'))
        assert.ok(rated(name) >= 20, `${name} (rated ${rated(name)}) shown with hideBelow=20`)
    assert.equal(
        sectionItems(await details('level', 'city-lights'), 'level'),
        ['morning-dew'],
        'without the option it is there',
    )
})

test('E12: an unlisted item is reachable by its name', async () => {
    const body = await details('level', 'secret-garden', '?localization=ja')
    assert.is(body.item.title, 'ひみつの庭')
    assert.equal(sectionItems(body, 'level'), ['night-drive'], 'same author: the listed ones')
})

test('E12: a draft is a 404, and served by a server started with drafts', async () => {
    const hidden = await get('/levels/rough-sketch')
    assertJsonError(hidden, 404, 'draft level')
    const shown = await details('level', 'rough-sketch', '', draftServer)
    assert.is(shown.item.title, 'Rough Sketch')
    const listed = await get<{ items: Item[] }>('/levels/list', draftServer)
    assert.ok(
        names(listed.body.items).includes('rough-sketch'),
        'drafts are listed on a drafts server',
    )
    const normal = await get<{ items: Item[] }>('/levels/list')
    assert.not.ok(names(normal.body.items).includes('rough-sketch'))
})

// ---------------------------------------------------------------- E15, E18

const commentsOf = (record: Pick<ContentRecord, 'type' | 'name'>) =>
    readComments(record.type, record.name)

const assertComment = (
    got: Comment,
    expected: ReturnType<typeof readComments>[number],
    where: string,
) => {
    assert.is(got.name, expected.name, `${where}: name`)
    assert.is(got.author, localize(expected.author, 'en'), `${where}: author`)
    assert.type(got.time, 'number', `${where}: time is a number`)
    assert.is(got.time, expected.time, `${where}: time`)
    assert.is(got.content, expected.content, `${where}: content`)
    assert.ok(Array.isArray(got.actions))
}

test('E15: community info holds the newest comments', async () => {
    for (const name of ['first-steps', 'night-drive']) {
        const expected = commentsOf({ type: 'level', name })
        const { status, body } = await get<{ actions: unknown[]; topComments: Comment[] }>(
            `/levels/${name}/community/info`,
        )
        assert.is(status, 200)
        assertShape('ServerItemCommunityInfo', body)
        assert.ok(body.topComments.length > 0 && body.topComments.length <= expected.length)
        body.topComments.forEach((comment, index) =>
            assertComment(comment, expected[index]!, `${name} top comment ${index}`),
        )
    }
})

test('E18: comments list 10 a page, newest first; page 1 has the rest', async () => {
    const expected = commentsOf({ type: 'level', name: 'first-steps' })
    assert.is(expected.length, 13, 'self-check')
    const page0 = await get<{ pageCount: number; comments: Comment[] }>(
        '/levels/first-steps/community/comments/list',
    )
    const page1 = await get<{ pageCount: number; comments: Comment[] }>(
        '/levels/first-steps/community/comments/list?page=1',
    )
    const page2 = await get<{ pageCount: number; comments: Comment[] }>(
        '/levels/first-steps/community/comments/list?page=2',
    )
    for (const page of [page0, page1, page2]) {
        assert.is(page.status, 200)
        assertShape('ServerItemCommunityCommentList', page.body)
        assert.is(page.body.pageCount, 2)
    }
    assert.is(page0.body.comments.length, 10)
    assert.is(page1.body.comments.length, 3)
    assert.equal(page2.body.comments, [])
    ;[...page0.body.comments, ...page1.body.comments].forEach((comment, index) =>
        assertComment(comment, expected[index]!, `comment ${index}`),
    )
    const times = [...page0.body.comments, ...page1.body.comments].map((comment) => comment.time)
    assert.equal(
        times,
        [...times].sort((a, b) => b - a),
        'newest first',
    )
    assert.equal(
        (await get<{ comments: Comment[] }>('/levels/first-steps/community/comments/list?page=0'))
            .body,
        page0.body,
    )
})

test('E18: a short comment list is one page', async () => {
    const { status, body } = await get<{ pageCount: number; comments: Comment[] }>(
        '/levels/night-drive/community/comments/list',
    )
    assert.is(status, 200)
    assertShape('ServerItemCommunityCommentList', body)
    assert.is(body.pageCount, 1)
    assert.equal(names(body.comments), ['2026-04-13-kenta', '2026-04-11-carol'])
})

// ---------------------------------------------------------------- E21, E22, E23

const top = () =>
    readLeaderboards('level', 'first-steps').find((leaderboard) => leaderboard.name === 'top')!
const recordView = (record: ReturnType<typeof top>['records'][number]): LeaderboardRecord => ({
    name: record.name,
    rank: record.rank,
    player: record.player,
    value: record.value,
})

test('E21: a leaderboard shows its top records in rank order', async () => {
    const { status, body } = await get<{ topRecords: LeaderboardRecord[] }>(
        '/levels/first-steps/leaderboards/top',
    )
    assert.is(status, 200)
    assertShape('ServerItemLeaderboardDetails', body)
    const expected = top().records.map(recordView)
    assert.ok(
        body.topRecords.length > 0 && body.topRecords.length <= 10,
        `${body.topRecords.length} top records`,
    )
    assert.equal(body.topRecords, expected.slice(0, body.topRecords.length))
    assert.equal(body.topRecords.slice(0, 3), [
        { name: '1', rank: '1', player: 'Alice', value: '1,000,000' },
        { name: '2', rank: '2', player: 'Dave', value: '950,000' },
        { name: '3', rank: '2', player: 'Erin', value: '950,000' },
    ])
})

test('E22: records list 10 a page', async () => {
    const expected = top().records.map(recordView)
    assert.is(expected.length, 14, 'self-check')
    const pages = await Promise.all(
        ['', '?page=1', '?page=2'].map((query) =>
            get<{ pageCount: number; records: LeaderboardRecord[] }>(
                `/levels/first-steps/leaderboards/top/records/list${query}`,
            ),
        ),
    )
    for (const page of pages) {
        assert.is(page.status, 200)
        assertShape('ServerItemLeaderboardRecordList', page.body)
        assert.is(page.body.pageCount, 2)
    }
    assert.equal(pages[0]!.body.records, expected.slice(0, 10))
    assert.equal(pages[1]!.body.records, expected.slice(10))
    assert.equal(pages[2]!.body.records, [])
})

test('E23: a record lists its replays as full replay items', async () => {
    for (const record of top().records) {
        const { status, body } = await get<{ replays: (Item & { level: Item })[] }>(
            `/levels/first-steps/leaderboards/top/records/${record.name}`,
        )
        assert.is(status, 200, `record ${record.name}`)
        assertShape('ServerItemLeaderboardRecordDetails', body)
        assert.equal(names(body.replays), record.replays, `record ${record.name}`)
        for (const replay of body.replays) {
            assert.is(replay.level.name, 'first-steps')
            for (const item of collectItems(replay)) assert.is(item.source, address)
        }
    }
    const first = await get<{ replays: Item[] }>(
        '/levels/first-steps/leaderboards/top/records/1?localization=ja',
    )
    assert.is(
        first.body.replays[0]!.title,
        localize(recordByName('replay', 'alice-first-steps').fields.title, 'ja'),
    )
})

// ---------------------------------------------------------------- E3

test('E3: a read-only server offers no result submit forms', async () => {
    const { status, body } = await get<{ submits?: unknown[] }>('/levels/result/info')
    assert.is(status, 200)
    assertShape('ServerLevelResultInfo', body)
    assert.ok(body.submits === undefined || body.submits.length === 0, 'nothing to submit to')
})

// ---------------------------------------------------------------- not found

test('404 with a message: unknown item, leaderboard, record and comment-list item', async () => {
    const cases = [
        '/levels/no-such-level',
        '/engines/no-such-engine',
        '/levels/no-such-level/community/info',
        '/levels/no-such-level/community/comments/list',
        '/levels/no-such-level/leaderboards/top',
        '/levels/first-steps/leaderboards/no-such-board',
        '/levels/first-steps/leaderboards/no-such-board/records/list',
        '/levels/first-steps/leaderboards/top/records/99',
        '/levels/first-steps/leaderboards/top/records/no-such-record',
        '/levels/city-lights/leaderboards/top',
        '/levels/rough-sketch/community/comments/list',
        '/rooms/some-room',
        '/users/some-user',
    ]
    for (const path of cases) assertJsonError(await get(path), 404, path)
})

test.run()
