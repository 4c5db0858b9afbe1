/**
 * Players create, end to end with signed-in test players: posts and levels with their files,
 * comments and their deletion, item actions, results that become replays; every refusal of the
 * handshake; fifty comments at once; and everything still there after a restart. The server
 * watches its folder, so these writes also show they are loaded once, not twice.
 */
import type { LevelItem, PostItem, ReplayItem, ServerItemCommunityComment } from '@sonolus/core'
import { existsSync } from 'node:fs'
import { readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { gunzipSync, gzipSync } from 'node:zlib'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { parse as parseYaml } from 'yaml'
import { sha1, tinyMp3, tinyPng } from './support/fixtures.js'
import { assertJsonError } from './support/http.js'
import { signInPlayer, uploadFiles, type Player } from './support/player.js'
import { levelDataHash, perfectResult, replayDataOf } from './support/plays.js'
import { assertShape } from './support/response-shapes.js'
import { createTestSigner, type TestSigner } from './support/signing.js'
import { generousWriteLimits } from './support/write-limits.js'
import {
    copyContent,
    exampleContent,
    getJson,
    startTestServer,
    temporaryFolder,
    type TestServer,
} from './support/server.js'

const test = suite('players create')
let signer: TestSigner
let content: string
let cache: string
let server: TestServer
let alice: Player
let bob: Player

const start = (options: Parameters<typeof startTestServer>[0] = {}) =>
    startTestServer({
        content,
        cache,
        watch: true,
        signIn: {
            signatureKey: signer.publicKeyFile,
            sessionSecret: 'a secret the restarted server shares with this one',
        },
        ...options,
    })

test.before(async () => {
    assertShape('ServerMessage', {})
    signer = await createTestSigner()
    content = await copyContent()
    cache = await temporaryFolder('shelf-writes-state-')
    // Bob is an admin of this copy: he may delete what others made.
    const serverYaml = join(content, 'server.yaml')
    // And the edit form also sets `subtitle`, which posts do not have: such an edit must be undone.
    const declared = (await readFile(serverYaml, 'utf8'))
        .replace('admins: []', 'admins: [bob-id]')
        .replace(
            '  actions: &item-actions\n    - type: edit\n      title: "#EDIT"\n      icon: edit\n      options:\n',
            '$&        - { query: subtitle, type: text, name: "#SUBTITLE" }\n',
        )
    assert.match(declared, /query: subtitle/)
    await writeFile(serverYaml, declared)
    await generousWriteLimits(content)
    server = await start()
    alice = await signInPlayer(() => server, signer, 'alice-id', 'Alice')
    bob = await signInPlayer(() => server, signer, 'bob-id', 'Bob')
})

test.after(async () => {
    await server?.stop()
    await rm(content, { recursive: true, force: true })
    await rm(cache, { recursive: true, force: true })
})

const levelData = Buffer.from(
    JSON.stringify({ bgmOffset: 0, entities: [{ archetype: 'Initialization', data: [] }] }),
)
const gzipJson = (value: unknown) => gzipSync(Buffer.from(JSON.stringify(value)))

/** No staging or trash folder, and no upload part, is left behind by a write. */
const assertNoLeftovers = async () => {
    for (const type of ['posts', 'levels', 'replays']) {
        const leftovers = (await readdir(join(content, type))).filter((name) =>
            name.startsWith('.'),
        )
        assert.equal(leftovers, [], `${type}/ holds only items`)
    }
    const uploads = join(cache, 'uploads')
    if (existsSync(uploads)) assert.equal(await readdir(uploads), [], 'upload parts are removed')
}

let postName: string

test('create a post with a thumbnail: invisible until its file arrives, then served and on disk', async () => {
    const info = await alice.get<{ creates: { type: string }[] }>('/posts/info')
    assert.equal(
        info.body.creates.map((form) => form.type),
        ['post'],
    )
    const thumbnail = tinyPng(200, 10, 10)
    const submit = await alice.submit('/posts/create', {
        type: 'post',
        title: 'Hello from Alice',
        description: 'First post!',
        thumbnail: sha1(thumbnail),
    })
    assert.is(submit.status, 200, submit.body.message)
    assertShape('ServerCreateItemResponse', submit.body)
    assert.equal(submit.body.hashes, [sha1(thumbnail)])
    assert.ok(submit.body.key.length >= 20)
    const before = await getJson<{ items: PostItem[] }>(`${server.root}/posts/list`)
    assert.not.ok(
        before.body.items.some((post) => post.title === 'Hello from Alice'),
        'nothing shows before the upload',
    )

    const upload = await alice.upload('/posts/upload', submit.body.key, [thumbnail])
    assert.is(upload.status, 200, upload.body.message)
    assertShape('ServerUploadItemResponse', upload.body)
    postName = String(upload.body.shouldNavigateToItem)
    assert.match(postName, /^[a-z0-9]+-[0-9a-f]{8}$/, 'a generated name, not the title')

    const details = await getJson<{ item: PostItem; description: string }>(
        `${server.root}/posts/${postName}`,
    )
    assert.is(details.status, 200)
    assert.is(details.body.item.title, 'Hello from Alice')
    assert.is(details.body.item.author, 'Alice')
    assert.is(details.body.description, 'First post!')
    assert.is(details.body.item.thumbnail!.hash, sha1(thumbnail))

    const record = parseYaml(
        await readFile(join(content, 'posts', postName, 'item.yaml'), 'utf8'),
    ) as Record<string, unknown>
    assert.is(record.title, 'Hello from Alice')
    assert.is(record.authorId, 'alice-id')
    assert.ok(Date.parse(String(record.time)) > Date.now() - 60_000)
    assert.ok((await readFile(join(content, 'posts', postName, 'thumbnail.png'))).equals(thumbnail))
    await assertNoLeftovers()
})

let levelName: string

test('create a level with cover, bgm and data: files by role, fields by query, the rest in meta', async () => {
    const cover = tinyPng(1, 2, 3)
    const bgm = tinyMp3(7)
    const values = {
        type: 'level',
        title: 'Alice in Rhythm',
        artists: 'Alice',
        rating: '17',
        engine: 'shelf-hold',
        genre: 'rock',
        cover: sha1(cover),
        bgm: sha1(bgm),
        data: sha1(levelData),
    }
    const submit = await alice.submit('/levels/create', values)
    assert.is(submit.status, 200, submit.body.message)
    assert.equal([...submit.body.hashes].sort(), [sha1(cover), sha1(bgm), sha1(levelData)].sort())
    // Order and file names are not trusted: the hashes say which file is which.
    const upload = await alice.upload('/levels/upload', submit.body.key, [levelData, bgm, cover])
    assert.is(upload.status, 200, upload.body.message)
    levelName = String(upload.body.shouldNavigateToItem)

    const folder = join(content, 'levels', levelName)
    assert.equal((await readdir(folder)).sort(), ['bgm.mp3', 'cover.png', 'data.json', 'item.yaml'])
    const record = parseYaml(await readFile(join(folder, 'item.yaml'), 'utf8')) as Record<
        string,
        unknown
    >
    assert.equal(
        {
            title: record.title,
            artists: record.artists,
            rating: record.rating,
            engine: record.engine,
            meta: record.meta,
            authorId: record.authorId,
        },
        {
            title: 'Alice in Rhythm',
            artists: 'Alice',
            rating: 17,
            engine: 'shelf-hold',
            meta: { genre: 'rock' },
            authorId: 'alice-id',
        },
    )

    const details = await getJson<{ item: LevelItem }>(`${server.root}/levels/${levelName}`)
    assert.is(details.status, 200)
    assertShape('LevelDetails', details.body)
    assert.is(details.body.item.engine.name, 'shelf-hold')
    assert.is(details.body.item.rating, 17)
    assert.is(details.body.item.cover.hash, sha1(cover))
    const data = await fetch(new URL(details.body.item.data.url!, server.url))
    assert.equal(
        JSON.parse(gunzipSync(Buffer.from(await data.arrayBuffer())).toString()),
        JSON.parse(levelData.toString()),
        'the data is served gzipped, as levels are',
    )
    const found = await getJson<{ items: LevelItem[] }>(
        `${server.root}/levels/list?type=advanced&genre=rock&keywords=rhythm`,
    )
    assert.ok(
        found.body.items.some((level) => level.name === levelName),
        'meta from the form is searchable',
    )
})

test('a level whose files are not what their roles hold is refused, and nothing is written', async () => {
    const notAnImage = Buffer.from('this is not a png')
    const bgm = tinyMp3(9)
    const submit = await alice.submit('/levels/create', {
        type: 'level',
        title: 'Broken',
        cover: sha1(notAnImage),
        bgm: sha1(bgm),
        data: sha1(levelData),
    })
    const before = await readdir(join(content, 'levels'))
    const upload = await alice.upload('/levels/upload', submit.body.key, [
        notAnImage,
        bgm,
        levelData,
    ])
    assertJsonError(upload, 400, 'a cover that is not an image')
    assert.match(upload.body.message!, /"cover" must be an image/)
    assert.equal(await readdir(join(content, 'levels')), before)
    await assertNoLeftovers()
})

let commentName: string

test('post a comment: on disk with its author, first in the list, loaded once', async () => {
    const reloads: string[][] = []
    const onReload = ({ paths }: { paths: string[] }) => reloads.push(paths)
    server.events.on('reload', onReload)
    const community = await alice.get<{ actions: { type: string }[] }>(
        '/levels/city-lights/community/info',
    )
    assert.equal(
        community.body.actions.map((form) => form.type),
        ['comment'],
    )
    const details = await getJson<{ hasCommunity: boolean }>(`${server.root}/levels/city-lights`)
    assert.ok(
        details.body.hasCommunity,
        'an item without comments still has a community to write in',
    )

    const submit = await alice.submit('/levels/city-lights/community/submit', {
        type: 'comment',
        content: 'Lovely level!\nSecond line.',
    })
    assert.is(submit.status, 200, submit.body.message)
    assertShape('ServerSubmitItemCommunityActionResponse', submit.body)
    assert.equal(submit.body.hashes, [])
    assert.is(submit.body.shouldUpdateComments, true)

    const list = await alice.get<{ comments: ServerItemCommunityComment[] }>(
        '/levels/city-lights/community/comments/list',
    )
    const comment = list.body.comments[0]!
    assert.is(comment.content, 'Lovely level!\nSecond line.')
    assert.is(comment.author, 'Alice#1000')
    assert.equal(
        comment.actions.map((form) => form.type),
        ['delete'],
        'its author may delete it',
    )
    commentName = comment.name
    const file = await readFile(
        join(content, 'levels', 'city-lights', 'comments', `${commentName}.md`),
        'utf8',
    )
    assert.match(file, /^---\nauthor: Alice#1000\nauthorId: alice-id\nauthorHandle: "1000"\ntime: /)
    assert.match(file, /\n---\nLovely level!\nSecond line.\n$/)

    // The watcher sees the file too; it must not be loaded a second time.
    await new Promise((resolve) => setTimeout(resolve, 400))
    server.events.off('reload', onReload)
    const loads = reloads.filter((paths) =>
        paths.some((path) => path.startsWith('levels/city-lights/')),
    )
    assert.is(loads.length, 1, `loaded once: ${JSON.stringify(reloads)}`)
})

test("comment actions are offered to their author only; another player's delete is refused", async () => {
    const carol = await signInPlayer(server, signer, 'carol-id', 'Carol')
    const seen = await carol.get<{ comments: ServerItemCommunityComment[] }>(
        '/levels/city-lights/community/comments/list',
    )
    assert.equal(seen.body.comments.find((comment) => comment.name === commentName)!.actions, [])
    const refused = await carol.submit(
        `/levels/city-lights/community/comments/${commentName}/submit`,
        { type: 'delete' },
    )
    assertJsonError(refused, 403, "deleting another player's comment")
    assert.match(refused.body.message!, /only the player who wrote this comment or an admin/)
    assert.ok(existsSync(join(content, 'levels', 'city-lights', 'comments', `${commentName}.md`)))
})

test('the author deletes their comment: gone from the list and the folder', async () => {
    const deleted = await alice.submit(
        `/levels/city-lights/community/comments/${commentName}/submit`,
        { type: 'delete' },
    )
    assert.is(deleted.status, 200, deleted.body.message)
    assert.not.ok(
        existsSync(join(content, 'levels', 'city-lights', 'comments', `${commentName}.md`)),
    )
    const list = await getJson<{ comments: ServerItemCommunityComment[] }>(
        `${server.root}/levels/city-lights/community/comments/list`,
    )
    assert.not.ok(list.body.comments.some((comment) => comment.name === commentName))
    assertJsonError(
        await alice.submit(`/levels/city-lights/community/comments/${commentName}/submit`, {
            type: 'delete',
        }),
        404,
        'a deleted comment',
    )
})

test('item actions: offered to the author and admins; edit rewrites item.yaml; others are refused', async () => {
    const own = await alice.get<{ actions: { type: string }[] }>(`/posts/${postName}`)
    assert.equal(
        own.body.actions.map((form) => form.type),
        ['edit', 'delete'],
    )
    const guest = await getJson<{ actions: unknown[] }>(`${server.root}/posts/${postName}`)
    assert.equal(guest.body.actions, [], 'a guest is offered nothing')
    const carol = await signInPlayer(server, signer, 'carol-id', 'Carol')
    assert.equal(
        (await carol.get<{ actions: unknown[] }>(`/posts/${postName}`)).body.actions,
        [],
        'nor another player',
    )
    assert.equal(
        (await bob.get<{ actions: { type: string }[] }>(`/posts/${postName}`)).body.actions.map(
            (form) => form.type,
        ),
        ['edit', 'delete'],
        'an admin is',
    )

    const refused = await carol.submit(`/posts/${postName}/submit`, {
        type: 'edit',
        title: 'Hijacked',
    })
    assertJsonError(refused, 403, "editing another player's post")
    assertJsonError(
        await carol.submit('/posts/patch-notes/submit', { type: 'delete' }),
        403,
        "deleting the owner's own post",
    )

    const edited = await alice.submit(`/posts/${postName}/submit`, {
        type: 'edit',
        title: 'Hello again',
        description: 'Edited.',
    })
    assert.is(edited.status, 200, edited.body.message)
    assert.is(edited.body.shouldUpdateItem, true)
    const details = await getJson<{ item: PostItem; description: string }>(
        `${server.root}/posts/${postName}`,
    )
    assert.is(details.body.item.title, 'Hello again')
    assert.is(details.body.description, 'Edited.')
    assert.match(
        await readFile(join(content, 'posts', postName, 'item.yaml'), 'utf8'),
        /^# Made by Alice#1000[^\n]*\n/,
        'the rest of the file is kept',
    )
})

test('an edit that would break the item is undone, and the answer says why', async () => {
    const file = join(content, 'posts', postName, 'item.yaml')
    const before = await readFile(file, 'utf8')
    const broken = await alice.submit(`/posts/${postName}/submit`, {
        type: 'edit',
        title: 'With a subtitle',
        subtitle: 'posts have none',
    })
    assertJsonError(broken, 400, 'an edit writing a field posts do not have')
    assert.match(broken.body.message!, /the edit was not accepted: .*subtitle/)
    assert.is(await readFile(file, 'utf8'), before, 'the record is as it was')
    const details = await getJson<{ item: PostItem }>(`${server.root}/posts/${postName}`)
    assert.is(details.body.item.title, 'Hello again')
    const problems = await getJson<{ problems: unknown[] }>(`${server.url}/_shelf/problems`)
    assert.not.ok(JSON.stringify(problems.body).includes(postName), 'and no problem is left behind')
})

test("submit a result: it becomes a replay of the level with the app's own data", async () => {
    const info = await getJson<{ submits: { type: string }[] }>(`${server.root}/levels/result/info`)
    assert.equal(
        info.body.submits.map((form) => form.type),
        ['replay'],
    )
    const data = gzipJson(replayDataOf(perfectResult))
    const configuration = gzipJson({ options: [], optionNames: [] })
    const replay = {
        name: 'local-replay',
        version: 1,
        title: 'AP / 1000000',
        subtitle: '120 / 0 / 0 / 0',
        author: 'Alice',
        tags: [],
        level: {
            name: 'first-steps',
            source: server.url,
            data: { hash: await levelDataHash(server, 'first-steps') },
        },
        data: { hash: sha1(data), url: '/local/data' },
        configuration: { hash: sha1(configuration), url: '/local/configuration' },
    }
    const submit = await alice.submit('/levels/result/submit', { type: 'replay' }, { replay })
    assert.is(submit.status, 200, submit.body.message)
    assertShape('ServerSubmitLevelResultResponse', submit.body)
    assert.equal([...submit.body.hashes].sort(), [sha1(data), sha1(configuration)].sort())
    const upload = await alice.upload('/levels/result/upload', submit.body.key, [
        configuration,
        data,
    ])
    assert.is(upload.status, 200, upload.body.message)
    assert.equal(upload.body, {})

    const replays = await getJson<{ items: ReplayItem[] }>(`${server.root}/replays/list`)
    const made = replays.body.items.find((item) => item.title === 'AP / 1000000')
    assert.ok(made, 'the replay is listed')
    assert.is(made!.level.name, 'first-steps')
    assert.is(made!.data.hash, sha1(data), 'served as the app recorded it')
    assert.is(made!.configuration.hash, sha1(configuration))
    const served = await fetch(new URL(made!.data.url!, server.url))
    assert.ok(Buffer.from(await served.arrayBuffer()).equals(data))
    const record = parseYaml(
        await readFile(join(content, 'replays', made!.name, 'item.yaml'), 'utf8'),
    ) as Record<string, unknown>
    assert.equal(
        { level: record.level, authorId: record.authorId, levelData: record.levelData },
        { level: 'first-steps', authorId: 'alice-id', levelData: replay.level.data.hash },
    )

    const unknownLevel = await alice.submit(
        '/levels/result/submit',
        { type: 'replay' },
        { replay: { ...replay, level: { ...replay.level, name: 'not-here' } } },
    )
    assertJsonError(unknownLevel, 404, 'a result of a level this server does not have')
    assertJsonError(
        await alice.submit(
            '/levels/result/submit',
            { type: 'replay' },
            { replay: { level: { name: 'first-steps' } } },
        ),
        400,
        'a replay without its files',
    )
})

test('refusals: no session 401; unknown form, bad and missing values 400 naming the option', async () => {
    const guest = await fetch(`${server.root}/posts/create`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ values: 'type=post&title=x' }),
    })
    assertJsonError(
        { status: guest.status, headers: guest.headers, body: await guest.json() },
        401,
        'creating as a guest',
    )
    const cases: [string, Record<string, string>, RegExp][] = [
        ['/posts/create', { type: 'poem', title: 'x' }, /no post create form "poem"/],
        ['/posts/create', { type: 'post' }, /option "title" is required/],
        [
            '/posts/create',
            { type: 'post', title: 'x'.repeat(101) },
            /option "title" expects at most 100 characters/,
        ],
        [
            '/posts/create',
            { type: 'post', title: 'x', thumbnail: 'not-a-hash' },
            /option "thumbnail" expects the SHA-1/,
        ],
        [
            '/levels/create',
            { type: 'level', title: 'x', rating: '99' },
            /option "rating" expects a number from 1 to 50/,
        ],
        [
            '/levels/create',
            { type: 'level', title: 'x', engine: 'warp-drive' },
            /option "engine" expects one of shelf-tap, shelf-hold/,
        ],
        ['/levels/create', { type: 'level', title: 'x' }, /option "cover" is required/],
    ]
    for (const [path, values, message] of cases) {
        const response = await alice.submit(path, values)
        assertJsonError(response, 400, `${path} ${JSON.stringify(values)}`)
        assert.match(response.body.message!, message)
    }
    const notJson = await fetch(`${server.root}/posts/create`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'Service-Session': alice.session },
        body: '{"values":',
    })
    assertJsonError(
        { status: notJson.status, headers: notJson.headers, body: await notJson.json() },
        400,
        'a body that is not JSON',
    )
})

test('upload refusals: missing, wrong, reused, foreign and misdirected keys; unasked and missing files; too large', async () => {
    const thumbnail = tinyPng(9, 9, 9)
    const submit = () =>
        alice.submit('/posts/create', { type: 'post', title: 'Keys', thumbnail: sha1(thumbnail) })

    assertJsonError(
        await uploadFiles(server, '/posts/upload', undefined, [thumbnail], alice.session),
        400,
        'no upload key',
    )
    assertJsonError(
        await alice.upload('/posts/upload', 'made-up-key', [thumbnail]),
        401,
        'an unknown key',
    )
    const forBob = await submit()
    assertJsonError(
        await bob.upload('/posts/upload', forBob.body.key, [thumbnail]),
        401,
        "another player's key",
    )
    const misdirected = await submit()
    const wrongPlace = await alice.upload('/levels/upload', misdirected.body.key, [thumbnail])
    assertJsonError(wrongPlace, 401, 'a key of another endpoint')
    assert.match(wrongPlace.body.message!, /for \/service\/posts\/upload/)

    const unasked = await submit()
    const other = tinyPng(1, 1, 1)
    const unaskedAnswer = await alice.upload('/posts/upload', unasked.body.key, [other])
    assertJsonError(unaskedAnswer, 400, 'a file whose hash was not asked for')
    assert.match(unaskedAnswer.body.message!, new RegExp(`${sha1(other)} was not asked for`))

    const nothing = await submit()
    assertJsonError(
        await alice.upload('/posts/upload', nothing.body.key, []),
        400,
        'no files at all',
    )

    const used = await submit()
    assert.is((await alice.upload('/posts/upload', used.body.key, [thumbnail])).status, 200)
    const reused = await alice.upload('/posts/upload', used.body.key, [thumbnail])
    assertJsonError(reused, 401, 'a key used once already')
    assert.match(reused.body.message!, /already used/)

    // The post thumbnail option allows 2 MiB.
    const huge = Buffer.concat([tinyPng(5, 5, 5), Buffer.alloc(2 * 1024 * 1024 + 10)])
    const big = await alice.submit('/posts/create', {
        type: 'post',
        title: 'Huge',
        thumbnail: sha1(huge),
    })
    assertJsonError(
        await alice.upload('/posts/upload', big.body.key, [huge]),
        413,
        "a file over its option's maxSize",
    )
    await assertNoLeftovers()
})

test('upload keys expire', async () => {
    await server.stop()
    server = await start({ uploadKeyLifetimeMs: 300 })
    const thumbnail = tinyPng(3, 3, 3)
    const submit = await alice.submit('/posts/create', {
        type: 'post',
        title: 'Late',
        thumbnail: sha1(thumbnail),
    })
    await new Promise((resolve) => setTimeout(resolve, 400))
    assertJsonError(
        await alice.upload('/posts/upload', submit.body.key, [thumbnail]),
        401,
        'an expired key',
    )
})

test('fifty comments at once: fifty comments, none lost', async () => {
    const players = await Promise.all(
        Array.from({ length: 5 }, (_, index) =>
            signInPlayer(server, signer, `fan-${index}`, `Fan ${index}`),
        ),
    )
    const answers = await Promise.all(
        Array.from({ length: 50 }, (_, index) =>
            players[index % 5]!.submit('/levels/morning-dew/community/submit', {
                type: 'comment',
                content: `comment number ${index}`,
            }),
        ),
    )
    assert.equal(
        answers.map((answer) => answer.status),
        Array(50).fill(200),
    )
    const files = await readdir(join(content, 'levels', 'morning-dew', 'comments'))
    assert.is(files.length, 50)
    const contents = new Set<string>()
    for (let page = 0; page < 5; page++) {
        const list = await getJson<{ pageCount: number; comments: ServerItemCommunityComment[] }>(
            `${server.root}/levels/morning-dew/community/comments/list?page=${page}`,
        )
        assert.is(list.body.pageCount, 5)
        for (const comment of list.body.comments) contents.add(comment.content)
    }
    assert.equal(
        [...contents].sort(),
        Array.from({ length: 50 }, (_, index) => `comment number ${index}`).sort(),
    )
})

test("an admin deletes a player's level: its folder is gone and it is no longer served", async () => {
    const deleted = await bob.submit(`/levels/${levelName}/submit`, { type: 'delete' })
    assert.is(deleted.status, 200, deleted.body.message)
    assert.is(deleted.body.shouldRemoveItem, true)
    assert.not.ok(existsSync(join(content, 'levels', levelName)))
    assertJsonError(await getJson(`${server.root}/levels/${levelName}`), 404, 'the deleted level')
    await assertNoLeftovers()
})

test('after a restart everything players made is still there', async () => {
    await server.stop()
    server = await start()
    const post = await getJson<{ item: PostItem }>(`${server.root}/posts/${postName}`)
    assert.is(post.status, 200)
    assert.is(post.body.item.title, 'Hello again')
    const comments = await getJson<{ pageCount: number }>(
        `${server.root}/levels/morning-dew/community/comments/list`,
    )
    assert.is(comments.body.pageCount, 5)
    // The session signed before the restart still works: the secret is shared.
    assert.is((await alice.get(`/posts/${postName}`)).status, 200)
})

test('--read-only: no forms are offered and every write is 404', async () => {
    const readOnly = await startTestServer({
        content: exampleContent,
        readOnly: true,
        signIn: { signatureKey: signer.publicKeyFile },
    })
    try {
        const reader = await signInPlayer(readOnly, signer, 'alice-id', 'Alice')
        assert.equal(
            (await reader.get<{ creates?: unknown[] }>('/levels/info')).body.creates ?? [],
            [],
        )
        assert.equal(
            (await reader.get<{ actions: unknown[] }>('/levels/city-lights/community/info')).body
                .actions,
            [],
        )
        assert.equal(
            (await reader.get<{ submits?: unknown[] }>('/levels/result/info')).body.submits ?? [],
            [],
        )
        for (const path of [
            '/posts/create',
            '/posts/upload',
            '/levels/first-steps/submit',
            '/levels/first-steps/community/submit',
            '/levels/result/submit',
        ]) {
            assertJsonError(
                await reader.submit(path, { type: 'post', title: 'x' }),
                404,
                `POST ${path} read-only`,
            )
        }
    } finally {
        await readOnly.stop()
    }
})

test.run()
