/**
 * Boards of submitted plays, end to end with signed-in test players: the best play per player,
 * ties to the earlier play, a lower-is-better board, a chart change (new empty boards, the old
 * ones still readable), a title edit (boards kept), every implausible play refused with its
 * reason, a banned player, a replay taken out of the folder, and a restart rebuilding the same.
 */
import type { ServerItemLeaderboardRecord } from '@sonolus/core'
import { readFile, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { sha1 } from './support/fixtures.js'
import { assertJsonError } from './support/http.js'
import { signInPlayer, type Player } from './support/player.js'
import {
    gzipJson,
    levelDataHash,
    play,
    replayDataOf,
    resultOf,
    submitPlay,
} from './support/plays.js'
import { assertShape } from './support/response-shapes.js'
import {
    copyContent,
    getJson,
    startTestServer,
    temporaryFolder,
    type TestServer,
} from './support/server.js'
import { createTestSigner, type TestSigner } from './support/signing.js'
import { generousWriteLimits } from './support/write-limits.js'

const test = suite('boards of submitted plays')
let signer: TestSigner
let content: string
let cache: string
let server: TestServer
const players: Record<string, Player> = {}

const start = () =>
    startTestServer({
        content,
        cache,
        watch: true,
        signIn: {
            signatureKey: signer.publicKeyFile,
            sessionSecret: 'a secret the restarted server shares',
        },
    })

const board = (level: string, name: string) => `${server.root}/levels/${level}/leaderboards/${name}`

const topRecords = async (level: string, name: string) => {
    const answer = await getJson<{ topRecords: ServerItemLeaderboardRecord[] }>(board(level, name))
    assert.is(answer.status, 200, JSON.stringify(answer.body))
    assertShape('ServerItemLeaderboardDetails', answer.body)
    return answer.body.topRecords
}

/** Rank, player and value of each record: what a player reads. */
const readable = (records: ServerItemLeaderboardRecord[]) =>
    records.map((record) => `${record.rank} ${record.player} ${record.value}`)

const boardNames = async (level: string) => {
    const details = await getJson<{ leaderboards: { name: string; title: string }[] }>(
        `${server.root}/levels/${level}`,
    )
    return details.body.leaderboards
}

/** Waits for the server to serve what a change of the folder made (no fixed sleep). */
const until = async <T>(read: () => Promise<T>, done: (value: T) => boolean, what: string) => {
    const deadline = Date.now() + 20_000
    for (;;) {
        const value = await read()
        if (done(value)) return value
        if (Date.now() > deadline) throw new Error(`${what}: still ${JSON.stringify(value)}`)
        // The next reload, or a second at most: the awaited one may have come just before.
        await new Promise((resolve) => {
            const timer = setTimeout(resolve, 1000)
            server.events.once('reload', () => resolve(clearTimeout(timer)))
        })
    }
}

test.before(async () => {
    signer = await createTestSigner()
    content = await copyContent()
    cache = await temporaryFolder('shelf-boards-state-')
    await generousWriteLimits(content)
    const serverYaml = join(content, 'server.yaml')
    await writeFile(
        serverYaml,
        (await readFile(serverYaml, 'utf8')).replace(
            'banned: []',
            'banned:\n  - { id: mallory-id, reason: made-up scores }',
        ),
    )
    server = await start()
    for (const [id, name] of [
        ['alice-id', 'Alice'],
        ['bob-id', 'Bob'],
        ['carol-id', 'Carol'],
        ['mallory-id', 'Mallory'],
    ] as const)
        players[id] = await signInPlayer(() => server, signer, id, name)
})

test.after(async () => {
    await server.stop()
    await rm(content, { recursive: true, force: true })
    await rm(cache, { recursive: true, force: true })
})

test('the best play of each player ranks; a tie goes to the earlier play; lower-is-better boards', async () => {
    const hash = await levelDataHash(server, 'city-lights')
    assert.equal(
        (await boardNames('city-lights')).map((entry) => entry.name),
        ['arcade', 'fewest-misses'],
        'the boards server.yaml declares for every level',
    )
    assert.equal(await topRecords('city-lights', 'arcade'), [], 'empty before any play')
    await play(players['alice-id']!, 'city-lights', hash, resultOf(900_000, 2))
    await play(players['bob-id']!, 'city-lights', hash, resultOf(950_000, 1))
    await play(players['alice-id']!, 'city-lights', hash, resultOf(1_000_000, 0))
    await play(players['carol-id']!, 'city-lights', hash, resultOf(950_000, 1))
    await play(players['alice-id']!, 'city-lights', hash, resultOf(800_000, 3))
    assert.equal(readable(await topRecords('city-lights', 'arcade')), [
        '1 Alice#1000 1,000,000',
        '2 Bob#1000 950,000',
        '3 Carol#1000 950,000',
    ])
    assert.equal(readable(await topRecords('city-lights', 'fewest-misses')), [
        '1 Alice#1000 0',
        '2 Bob#1000 1',
        '3 Carol#1000 1',
    ])
    const records = await topRecords('city-lights', 'arcade')
    for (const record of records) assert.ok(record.playerUser, 'each record links its player')
    assert.is(records[0]!.playerUser!.name, 'alice-id')

    const list = await getJson<{ pageCount: number; records: unknown[] }>(
        `${board('city-lights', 'arcade')}/records/list`,
    )
    assertShape('ServerItemLeaderboardRecordList', list.body)
    assert.equal(
        { pages: list.body.pageCount, records: list.body.records.length },
        { pages: 1, records: 3 },
    )
    const details = await getJson<{ replays: { name: string; level: { name: string } }[] }>(
        `${board('city-lights', 'arcade')}/records/${records[0]!.name}`,
    )
    assertShape('ServerItemLeaderboardRecordDetails', details.body)
    assert.is(details.body.replays.length, 1, 'the record lists the replay to watch')
    assert.is(details.body.replays[0]!.level.name, 'city-lights')
})

test('every implausible play is refused with its reason, and nothing is written', async () => {
    const alice = players['alice-id']!
    const hash = await levelDataHash(server, 'morning-dew')
    const replaysBefore = (await getJson<{ items: unknown[] }>(`${server.root}/replays/list`)).body
    const refused = async (
        what: string,
        status: number,
        reason: RegExp,
        answer: Awaited<ReturnType<typeof submitPlay>>,
    ) => {
        const last = answer.upload ?? answer.submit
        assertJsonError(last, status, what)
        assert.match(last.body.message!, reason, what)
    }
    await refused(
        'counts that do not add up',
        400,
        /do not add up/,
        await submitPlay(alice, {
            level: 'morning-dew',
            levelData: hash,
            result: { ...resultOf(900_000), miss: 3 },
        }),
    )
    await refused(
        'a negative score',
        400,
        /arcadeScore is -1/,
        await submitPlay(alice, { level: 'morning-dew', levelData: hash, result: resultOf(-1) }),
    )
    await refused(
        'a score past any result',
        400,
        /accuracyScore/,
        await submitPlay(alice, {
            level: 'morning-dew',
            levelData: hash,
            result: { ...resultOf(1), accuracyScore: 1e15 },
        }),
    )
    await refused(
        'a fractional count',
        400,
        /combo is 7.5/,
        await submitPlay(alice, {
            level: 'morning-dew',
            levelData: hash,
            result: { ...resultOf(1), combo: 7.5 },
        }),
    )
    await refused(
        'data the level never served',
        400,
        /never served/,
        await submitPlay(alice, {
            level: 'morning-dew',
            levelData: sha1(Buffer.from('another chart')),
        }),
    )
    const noPlayArea = replayDataOf(resultOf(1)) as Record<string, unknown>
    delete noPlayArea.playArea
    await refused(
        'JSON that is no ReplayData',
        400,
        /"playArea"/,
        await submitPlay(alice, {
            level: 'morning-dew',
            levelData: hash,
            data: gzipJson(noPlayArea),
        }),
    )
    await refused(
        'a result without its grade',
        400,
        /"result.grade"/,
        await submitPlay(alice, {
            level: 'morning-dew',
            levelData: hash,
            result: { ...resultOf(1), grade: 'cheated' },
        }),
    )
    await refused(
        'not gzip',
        400,
        /gzip/,
        await submitPlay(alice, { level: 'morning-dew', levelData: hash, data: Buffer.from('{}') }),
    )
    // A megabyte that unpacks to a gigabyte: sixty-four gzip members of 16 MiB of zeros each.
    const member = gzipSync(Buffer.alloc(16 * 1024 * 1024), { level: 9 })
    const bomb = Buffer.concat(Array.from({ length: 64 }, () => member))
    assert.ok(bomb.length < 2 * 1024 * 1024, `the bomb is ${bomb.length} bytes`)
    // Refused by the size it unpacks to, which it can only know by stopping at the limit.
    await refused(
        'a gzip bomb',
        400,
        /unpacks to more than/,
        await submitPlay(alice, { level: 'morning-dew', levelData: hash, data: bomb }),
    )
    assert.equal(
        (await getJson<{ items: unknown[] }>(`${server.root}/replays/list`)).body,
        replaysBefore,
        'no refused play was written',
    )
    assert.equal(await topRecords('morning-dew', 'arcade'), [])
})

test('a banned player: their play and their comment are refused, with the reason', async () => {
    const mallory = players['mallory-id']!
    const hash = await levelDataHash(server, 'morning-dew')
    const answer = await submitPlay(mallory, {
        level: 'morning-dew',
        levelData: hash,
        result: resultOf(1_000_000),
    })
    assertJsonError(answer.submit, 403, 'a banned player')
    assert.match(answer.submit.body.message!, /made-up scores/)
    const comment = await mallory.submit('/levels/morning-dew/community/submit', {
        type: 'comment',
        content: 'hi',
    })
    assertJsonError(comment, 403, "a banned player's comment")
    // A play of theirs that reaches the folder another way is not ranked, and the log says why.
    await writeFile(
        join(content, 'server.yaml'),
        (await readFile(join(content, 'server.yaml'), 'utf8')).replace('mallory-id', 'nobody-id'),
    )
    await until(
        () =>
            submitPlay(mallory, {
                level: 'morning-dew',
                levelData: hash,
                result: resultOf(990_000),
            }).then((a) => a.upload?.status ?? a.submit.status),
        (status) => status === 200,
        'mallory unbanned',
    )
    assert.equal(readable(await topRecords('morning-dew', 'arcade')), ['1 Mallory#1000 990,000'])
    await writeFile(
        join(content, 'server.yaml'),
        (await readFile(join(content, 'server.yaml'), 'utf8')).replace('nobody-id', 'mallory-id'),
    )
    await until(
        () => topRecords('morning-dew', 'arcade'),
        (records) => records.length === 0,
        'banned again: off the board',
    )
    const problems = await getJson<{ problems: { file: string; message: string }[] }>(
        `${server.url}/_shelf/problems`,
    )
    assert.ok(
        problems.body.problems.some((problem) =>
            /not ranked: .*made-up scores/.test(problem.message),
        ),
        'the log says why the play is not ranked',
    )
})

test('a chart change starts empty boards; the old ones stay listed and readable', async () => {
    const before = await levelDataHash(server, 'city-lights')
    const ranked = await topRecords('city-lights', 'arcade')
    const data = join(content, 'levels', 'city-lights', 'data.json')
    const chart = JSON.parse(await readFile(data, 'utf8')) as { entities: unknown[] }
    await writeFile(
        data,
        JSON.stringify({ ...chart, entities: [...chart.entities, ...chart.entities.slice(-1)] }),
    )
    const after = await until(
        () => levelDataHash(server, 'city-lights'),
        (hash) => hash !== before,
        'the new chart served',
    )
    const names = await boardNames('city-lights')
    const old = `arcade.${before.slice(0, 8)}`
    assert.equal(
        names.map((entry) => entry.name),
        ['arcade', 'fewest-misses', old, `fewest-misses.${before.slice(0, 8)}`],
    )
    assert.match(names[2]!.title, /^Arcade score \(until \d{4}-\d\d-\d\d\)$/)
    assert.equal(await topRecords('city-lights', 'arcade'), [], 'the new chart has empty boards')
    assert.equal(
        readable(await topRecords('city-lights', old)),
        readable(ranked),
        'the old records are still there',
    )
    await play(players['bob-id']!, 'city-lights', after, resultOf(700_000, 4))
    assert.equal(readable(await topRecords('city-lights', 'arcade')), ['1 Bob#1000 700,000'])
    // A play on the old chart (an app that had not updated yet) still counts, on the old board.
    await play(players['carol-id']!, 'city-lights', before, resultOf(990_000))
    assert.equal(readable(await topRecords('city-lights', old)), [
        '1 Alice#1000 1,000,000',
        '2 Carol#1000 990,000',
        '3 Bob#1000 950,000',
    ])
})

test('a title edit keeps the boards', async () => {
    const record = join(content, 'levels', 'city-lights', 'item.yaml')
    const boards = readable(await topRecords('city-lights', 'arcade'))
    await writeFile(
        record,
        (await readFile(record, 'utf8')).replace(
            /^title: .*$/m,
            'title: City Lights (remastered title)',
        ),
    )
    await until(
        () => getJson<{ item: { title: string } }>(`${server.root}/levels/city-lights`),
        (answer) => answer.body.item.title === 'City Lights (remastered title)',
        'the new title',
    )
    assert.equal(readable(await topRecords('city-lights', 'arcade')), boards)
    assert.is((await boardNames('city-lights')).length, 4)
})

test("a replay taken out of the folder takes its record off; the player's next best comes back", async () => {
    const hash = await levelDataHash(server, 'thunder-road')
    await play(players['bob-id']!, 'thunder-road', hash, resultOf(800_000, 2))
    await play(players['bob-id']!, 'thunder-road', hash, resultOf(999_000, 0))
    await play(players['carol-id']!, 'thunder-road', hash, resultOf(900_000, 1))
    const [best] = await topRecords('thunder-road', 'arcade')
    assert.is(best!.value, '999,000')
    await rm(join(content, 'replays', best!.name), { recursive: true })
    const records = await until(
        () => topRecords('thunder-road', 'arcade'),
        (records) => records[0]?.value !== '999,000',
        'the record off',
    )
    assert.equal(readable(records), ['1 Carol#1000 900,000', '2 Bob#1000 800,000'])
})

test('a restart rebuilds the same boards, the old revisions included', async () => {
    const levels = ['city-lights', 'thunder-road', 'morning-dew']
    const read = async () => {
        const boards: Record<string, string[]> = {}
        for (const level of levels)
            for (const { name } of await boardNames(level))
                boards[`${level}/${name}`] = readable(await topRecords(level, name))
        return boards
    }
    const before = await read()
    await server.stop()
    server = await start()
    assert.equal(await read(), before)
})

test.run()
