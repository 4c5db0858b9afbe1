/**
 * A write reads only what it wrote, and what it changes shows everywhere it should: a comment
 * added, edited, broken, fixed, deleted and brought back, on a level with many comments; a
 * leaderboard's records added, changed and removed; a play into a big replays folder, removed and
 * brought back. After each step every answer that derives from it (comment pages and counts,
 * the community block, the details' sections and leaderboards, replay lists, the people and the
 * pages of those who wrote, problems) is what a server that reads the folder afresh answers,
 * besides the change itself showing. Edits are saved as an editor saves them, by a rename: a
 * write in place can be seen by a reload of its own while still empty, on a busy machine.
 */
import { gzipSync } from 'node:zlib'
import { cp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import type { Problem } from '../src/content/problems.js'
import { writeFileAtomic } from '../src/util/atomic-write.js'
import { sha1, writeTree, type FileTree } from './support/fixtures.js'
import { signInPlayer, type Player } from './support/player.js'
import { afterReload } from './support/reloads.js'
import {
    copyContent,
    getJson,
    startTestServer,
    temporaryFolder,
    type TestServer,
} from './support/server.js'
import { createTestSigner, type TestSigner } from './support/signing.js'
import { generousWriteLimits } from './support/write-limits.js'
import { levelDataHash, perfectResult, replayDataOf } from './support/plays.js'

const test = suite('incremental writes')
const address = 'https://shelf.test'
const ownerToken = 'the owner token of the incremental writes test'
const level = 'first-steps'
const commentsFolder = `levels/${level}/comments`
const leaderboardFile = `levels/${level}/leaderboards/top.yaml`
/** Enough comments for several pages, and replays for many list pages. */
const extraComments = 35
const extraReplays = 150
/** The boards of submitted plays server.yaml gives every level, listed after the written ones. */
const playedBoards = ['arcade', 'fewest-misses']
const names = (leaderboards: { name: string }[]) => leaderboards.map(({ name }) => name)

let content: string
let server: TestServer
let signer: TestSigner
let alice: Player

type Comment = { name: string; content: string }
type CommentList = { comments: Comment[] }
type Details = { hasCommunity: boolean; leaderboards: { name: string }[]; sections: unknown[] }
type ItemList = { items: { name: string }[] }

const file = (path: string) => join(content, path)

const commentFile = (index: number, text = `Comment number ${index}.`) =>
    `---\nauthor: Player ${index}\ntime: ${new Date(Date.UTC(2026, 0, 1) + index * 3_600_000).toISOString()}\n---\n${text}\n`

const replayFiles = (name: string, minutes: number, levelName = level): FileTree => ({
    [`replays/${name}/item.yaml`]: `title: Run ${name}\nauthor: Player\ntime: ${new Date(Date.UTC(2026, 1, 1) + minutes * 60_000).toISOString()}\nlevel: ${levelName}\n`,
    [`replays/${name}/data.json`]: JSON.stringify({ run: name }),
    [`replays/${name}/configuration.json`]: JSON.stringify({ options: [] }),
})

test.before(async () => {
    signer = await createTestSigner()
    content = await copyContent()
    await generousWriteLimits(content)
    const files: FileTree = {}
    for (let index = 0; index < extraComments; index++)
        files[`${commentsFolder}/many-${index}.md`] = commentFile(index)
    for (let index = 0; index < extraReplays; index++)
        Object.assign(files, replayFiles(`run-${index}`, index, index % 2 ? level : 'city-lights'))
    await writeTree(content, files)
    server = await startTestServer({
        content,
        address,
        ownerToken,
        watch: true,
        signIn: { signatureKey: signer.publicKeyFile },
    })
    // Signed requests name the server's public address.
    alice = await signInPlayer({ url: address, root: server.root }, signer, 'alice-id', 'Alice')
})

test.after(async () => {
    await server?.stop()
    if (content) await rm(content, { recursive: true, force: true })
})

const get = async <T>(on: TestServer, path: string) => {
    const { status, body } = await getJson<T>(`${on.root}${path}`)
    assert.is(status, 200, `${path} on ${on.url}`)
    return body
}

/** Every page of a paged answer: by page number, or by cursor for a list that pages so. */
const everyPage = async <T = unknown>(on: TestServer, path: string) => {
    const join = path.includes('?') ? '&' : '?'
    type Page = T & { pageCount: number; cursor?: string }
    const first = await get<Page>(on, path)
    const pages = [first]
    for (let page = 1; page < first.pageCount; page++)
        pages.push(await get<Page>(on, `${path}${join}page=${page}`))
    for (let last = first; last.cursor !== undefined; pages.push(last))
        last = await get<Page>(on, `${path}${join}cursor=${encodeURIComponent(last.cursor)}`)
    return pages
}

const problemsOf = async (on: TestServer) => {
    // A server given --address shows its problems only with the owner token.
    const { body } = await getJson<{ problems: Problem[] }>(`${on.url}/_shelf/problems`, {
        headers: { Authorization: `Bearer ${ownerToken}` },
    })
    return body.problems.map((problem) => JSON.stringify(problem)).sort()
}

/** An answer as it is, whatever its status: a leaderboard left out is a 404 on both servers. */
const anyAnswer = async (on: TestServer, path: string) => {
    const { status, body } = await getJson(`${on.root}${path}`)
    return { status, body }
}

/**
 * The people whose comments the steps change: Alice, who posts; the writers of the comments
 * edited by hand, and the one a comment is given to. Pages of people who are not are a 404 on
 * both servers.
 */
const writers = ['alice-id', 'player-3', 'player-7', 'player-seven', 'player-11']

/** Everything a guest sees that a comment, a leaderboard record or a replay of the level changes. */
const derived = async (on: TestServer) => ({
    details: await get(on, `/levels/${level}`),
    otherLevel: await get(on, '/levels/city-lights'),
    community: await get(on, `/levels/${level}/community/info`),
    comments: await everyPage(on, `/levels/${level}/community/comments/list`),
    leaderboard: await anyAnswer(on, `/levels/${level}/leaderboards/top`),
    records: [
        await anyAnswer(on, `/levels/${level}/leaderboards/top/records/list`),
        await anyAnswer(on, `/levels/${level}/leaderboards/top/records/list?page=1`),
    ],
    replays: await everyPage(on, '/replays/list'),
    replaySearch: await everyPage(on, '/replays/list?type=quick&keywords=run'),
    people: await everyPage(on, '/users/list'),
    writers: await Promise.all(writers.map((name) => anyAnswer(on, `/users/${name}`))),
    problems: await problemsOf(on),
})

/** The running server answers as one that reads the folder now, from nothing. */
const assertAsIfRead = async (step: string) => {
    const cache = await temporaryFolder('shelf-fresh-')
    const fresh = await startTestServer({ content, address, ownerToken, cache, watch: false })
    try {
        const [running, expected] = [await derived(server), await derived(fresh)]
        for (const key of Object.keys(expected) as (keyof typeof expected)[])
            assert.equal(running[key], expected[key], `${step}: ${key}`)
    } finally {
        await fresh.stop()
    }
}

const allComments = async () => {
    const pages = await everyPage<CommentList>(server, `/levels/${level}/community/comments/list`)
    return pages.flatMap((page) => page.comments)
}

let posted: string
let postedBytes: string

test('a comment posted on a level of many comments shows first, in the counts and on every page', async () => {
    const before = await allComments()
    assert.ok(before.length > extraComments)
    const answer = await alice.submit(`/levels/${level}/community/submit`, {
        type: 'comment',
        content: 'Fresh comment',
    })
    assert.is(answer.status, 200, answer.body.message)
    const after = await allComments()
    assert.is(after.length, before.length + 1)
    assert.is(after[0]!.content, 'Fresh comment')
    assert.equal(
        after.slice(1).map((comment) => comment.name),
        before.map((comment) => comment.name),
    )
    const community = await get<{ topComments: Comment[] }>(
        server,
        `/levels/${level}/community/info`,
    )
    assert.is(community.topComments[0]!.name, after[0]!.name)
    posted = after[0]!.name
    postedBytes = await readFile(file(`${commentsFolder}/${posted}.md`), 'utf8')
    await assertAsIfRead('after the comment')
})

test('a comment edited by hand moves to where its new time sorts it, with its new text', async () => {
    const path = `${commentsFolder}/${posted}.md`
    const edited = postedBytes
        .replace(
            /^time: .*$/m,
            `time: ${new Date(Date.UTC(2026, 0, 1) + 10.5 * 3_600_000).toISOString()}`,
        )
        .replace('Fresh comment', 'Edited comment')
    await afterReload(server, [path], () => writeFileAtomic(file(path), edited))
    const comments = await allComments()
    const at = comments.findIndex((comment) => comment.name === posted)
    assert.is(comments[at]!.content, 'Edited comment')
    assert.is(comments[at - 1]!.name, 'many-11')
    assert.is(comments[at + 1]!.name, 'many-10')
    await assertAsIfRead('after the edit')
})

test('a comment broken by hand leaves the lists with a problem naming it; fixed, it is back', async () => {
    const path = `${commentsFolder}/many-3.md`
    const good = await readFile(file(path), 'utf8')
    await afterReload(server, [path], () =>
        writeFileAtomic(file(path), good.replace('author:', 'autor:')),
    )
    assert.not.ok((await allComments()).some((comment) => comment.name === 'many-3'))
    assert.ok((await problemsOf(server)).some((problem) => problem.includes(path)))
    await assertAsIfRead('after breaking a comment')
    await afterReload(server, [path], () => writeFileAtomic(file(path), good))
    assert.ok((await allComments()).some((comment) => comment.name === 'many-3'))
    assert.not.ok((await problemsOf(server)).some((problem) => problem.includes(path)))
    await assertAsIfRead('after fixing it')
})

const userNames = async () =>
    (await everyPage<ItemList>(server, '/users/list')).flatMap((page) =>
        page.items.map(({ name }) => name),
    )

test("a comment's author changed by hand: the comment moves from one person to the other", async () => {
    const path = `${commentsFolder}/many-7.md`
    const good = await readFile(file(path), 'utf8')
    assert.ok((await userNames()).includes('player-7'))
    await afterReload(server, [path], () =>
        writeFileAtomic(file(path), good.replace('author: Player 7', 'author: Player Seven')),
    )
    const comment = (await allComments()).find(({ name }) => name === 'many-7')
    assert.is((comment as { author?: string } | undefined)?.author, 'Player Seven')
    const people = await userNames()
    assert.ok(people.includes('player-seven'), 'the new writer is a person')
    assert.not.ok(people.includes('player-7'), 'the old one wrote nothing else')
    assert.is((await anyAnswer(server, '/users/player-7')).status, 404)
    await assertAsIfRead('after the author changed')
    await afterReload(server, [path], () => writeFileAtomic(file(path), good))
    const back = await userNames()
    assert.ok(back.includes('player-7'))
    assert.not.ok(back.includes('player-seven'))
    await assertAsIfRead('after the author changed back')
})

test('a comment deleted by its author is gone; brought back as git revert would, it is back', async () => {
    const answer = await alice.submit(`/levels/${level}/community/comments/${posted}/submit`, {
        type: 'delete',
    })
    assert.is(answer.status, 200, answer.body.message)
    assert.not.ok((await allComments()).some((comment) => comment.name === posted))
    await assertAsIfRead('after the delete')
    const path = `${commentsFolder}/${posted}.md`
    await afterReload(server, [path], () => writeFileAtomic(file(path), postedBytes))
    const comments = await allComments()
    assert.is(comments[0]!.name, posted)
    assert.is(comments[0]!.content, 'Fresh comment')
    await assertAsIfRead('after the revert')
})

test('the comments folder removed and put back whole', async () => {
    const count = (await allComments()).length
    const aside = await temporaryFolder('shelf-comments-aside-')
    await cp(file(commentsFolder), aside, { recursive: true })
    await afterReload(server, [commentsFolder], () => rm(file(commentsFolder), { recursive: true }))
    assert.equal(await allComments(), [])
    await assertAsIfRead('without the comments folder')
    const files = (await readdir(aside)).map((name) => `${commentsFolder}/${name}`)
    await afterReload(server, [commentsFolder, ...files], () =>
        cp(aside, file(commentsFolder), { recursive: true }),
    )
    assert.is((await allComments()).length, count)
    await assertAsIfRead('with the comments folder back')
    await rm(aside, { recursive: true, force: true })
})

const records = async () =>
    (
        await everyPage<{ records: { player: string; value: string }[] }>(
            server,
            `/levels/${level}/leaderboards/top/records/list`,
        )
    ).flatMap((page) => page.records)

test('a leaderboard record added, changed and removed, and a replay it names coming and going', async () => {
    const original = await readFile(file(leaderboardFile), 'utf8')
    const before = await records()
    const added = original.replace(
        'records:              # in rank order\n',
        'records:              # in rank order\n  - { player: Zed, value: "1,000,001" }\n',
    )
    await afterReload(server, [leaderboardFile], () =>
        writeFileAtomic(file(leaderboardFile), added),
    )
    assert.is((await records())[0]!.player, 'Zed')
    assert.is((await records()).length, before.length + 1)
    await assertAsIfRead('after a record was added')
    const changed = added.replace('"1,000,001"', '"1,000,002"')
    await afterReload(server, [leaderboardFile], () =>
        writeFileAtomic(file(leaderboardFile), changed),
    )
    assert.is((await records())[0]!.value, '1,000,002')
    await assertAsIfRead('after a record was changed')
    // A record naming a replay that is not there leaves the leaderboard out until it comes.
    const naming = changed.replace(
        '{ player: Zed, value: "1,000,002" }',
        '{ player: Zed, value: "1,000,002", replays: [zed-run] }',
    )
    await afterReload(server, [leaderboardFile], () =>
        writeFileAtomic(file(leaderboardFile), naming),
    )
    const without = await get<Details>(server, `/levels/${level}`)
    assert.equal(names(without.leaderboards), playedBoards)
    await assertAsIfRead('with a record naming a missing replay')
    const replay = replayFiles('zed-run', 100_000)
    await afterReload(server, Object.keys(replay), () => writeTree(content, replay))
    const withReplay = await get<Details>(server, `/levels/${level}`)
    assert.equal(names(withReplay.leaderboards), ['top', ...playedBoards])
    await assertAsIfRead('with the replay there')
    await afterReload(server, ['replays/zed-run'], () =>
        rm(file('replays/zed-run'), { recursive: true }),
    )
    assert.equal(names((await get<Details>(server, `/levels/${level}`)).leaderboards), playedBoards)
    await assertAsIfRead('with the replay gone again')
    await afterReload(server, [leaderboardFile], () =>
        writeFileAtomic(file(leaderboardFile), original),
    )
    assert.equal(await records(), before)
    await assertAsIfRead('after the record was removed')
})

const gzipJson = (value: unknown) => gzipSync(Buffer.from(JSON.stringify(value)))

test('a play into a big replays folder is listed first, in the level section; removed and brought back', async () => {
    const data = gzipJson(replayDataOf(perfectResult))
    const configuration = gzipJson({ options: [] })
    const replay = {
        name: 'local',
        title: 'A new play',
        level: { name: level, data: { hash: await levelDataHash(server, level) } },
        data: { hash: sha1(data), url: '/local/data' },
        configuration: { hash: sha1(configuration), url: '/local/configuration' },
    }
    const submit = await alice.submit('/levels/result/submit', { type: 'replay' }, { replay })
    assert.is(submit.status, 200, submit.body.message)
    const upload = await alice.upload('/levels/result/upload', submit.body.key, [
        data,
        configuration,
    ])
    assert.is(upload.status, 200, upload.body.message)
    const pages = await everyPage<ItemList>(server, '/replays/list')
    assert.ok(pages.length > 5, `${pages.length} pages of replays`)
    const made = pages[0]!.items[0]!
    assert.is((made as unknown as { title: string }).title, 'A new play')
    const details = await get<{ sections: { itemType: string; items: { name: string }[] }[] }>(
        server,
        `/levels/${level}`,
    )
    const section = details.sections.find((entry) => entry.itemType === 'replay')
    assert.is(section?.items[0]?.name, made.name)
    await assertAsIfRead('after the play')
    const aside = await temporaryFolder('shelf-replay-aside-')
    await cp(file(`replays/${made.name}`), aside, { recursive: true })
    await afterReload(server, [`replays/${made.name}`], () =>
        rm(file(`replays/${made.name}`), { recursive: true }),
    )
    assert.is.not((await get<ItemList>(server, '/replays/list')).items[0]!.name, made.name)
    await assertAsIfRead('after the replay was removed')
    const files = (await readdir(aside)).map((name) => `replays/${made.name}/${name}`)
    await afterReload(server, [`replays/${made.name}`, ...files], () =>
        cp(aside, file(`replays/${made.name}`), { recursive: true }),
    )
    assert.is((await get<ItemList>(server, '/replays/list')).items[0]!.name, made.name)
    await assertAsIfRead('after it was brought back')
    await rm(aside, { recursive: true, force: true })
})

test('a comment reads only its own file: a neighbour changed behind an unwatching server stays as it was read', async () => {
    const quiet = await startTestServer({
        content,
        address,
        ownerToken,
        watch: false,
        signIn: { signatureKey: signer.publicKeyFile },
    })
    try {
        const player = await signInPlayer({ url: address, root: quiet.root }, signer, 'bob', 'Bob')
        const neighbour = `${commentsFolder}/many-5.md`
        await writeFile(file(neighbour), commentFile(5, 'Changed behind its back.'))
        const answer = await player.submit(`/levels/${level}/community/submit`, {
            type: 'comment',
            content: 'One more',
        })
        assert.is(answer.status, 200, answer.body.message)
        const pages = await everyPage<CommentList>(
            quiet,
            `/levels/${level}/community/comments/list`,
        )
        const comments = pages.flatMap((page) => page.comments)
        assert.is(comments[0]!.content, 'One more')
        assert.is(
            comments.find((comment) => comment.name === 'many-5')!.content,
            'Comment number 5.',
        )
    } finally {
        await quiet.stop()
    }
})

test.run()
