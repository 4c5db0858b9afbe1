/**
 * Any replica answers any request: two `shelf serve` replicas on two clones of one bare remote,
 * sharing a real redis-server (--redis), behind real nginx balancing round-robin with the block
 * docs/replicas.md gives operators. Pulls are set far apart (10 minutes), so whatever one
 * replica serves of the other's writes came by the push signal or by read-your-writes.
 */
import type { ServerItemCommunityComment } from '@sonolus/core'
import { readFile } from 'node:fs/promises'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { eventually } from './support/eventually.js'
import { sha1, tinyPng } from './support/fixtures.js'
import { git, seededRemote, type Remote } from './support/git-repos.js'
import { freePort, startNginxBalancer, type RunningNginx } from './support/nginx.js'
import { answerOf, signInPlayer, uploadFiles, type Answer } from './support/player.js'
import { startRedis, type RunningRedis } from './support/redis.js'
import { startReplica, type Replica } from './support/replica.js'
import { setWriteLimit } from './support/write-limits.js'
import {
    createTestSigner,
    joinRoomBody,
    postSigned,
    signed,
    testProfile,
    type TestSigner,
} from './support/signing.js'

const test = suite('replicas behind a load balancer, sharing Redis')
let signer: TestSigner
let redis: RunningRedis
let remote: Remote
let clones: string[]
let replicas: Replica[]
let nginx: RunningNginx
let balancer: Target
let replicaFlags: string[]

type Target = { url: string; root: string }

/** Creates allowed to one player: low, so that two replicas counting alone would allow twice as many. */
const createsPerPlayer = 3

/** The nginx block of docs/replicas.md, which docs/deployments.md repeats for its replica deployment. */
const documentedBlock = async () => {
    const read = (file: string) => readFile(new URL(`../${file}`, import.meta.url), 'utf8')
    const block = (text: string) => /```nginx\n(upstream shelf[\s\S]*?)```/.exec(text)?.[1]
    const documented = block(await read('docs/replicas.md'))
    assert.ok(documented, 'docs/replicas.md gives an nginx block with an upstream')
    // In the deployments page the block is part of a list item, two spaces in.
    const inDeployments = block((await read('docs/deployments.md')).replace(/^ {2}/gm, ''))
    assert.is(inDeployments, documented, "docs/deployments.md's block is the same")
    return documented!
}

const startOn = (content: string, port?: number) =>
    startReplica({
        content,
        signatureKey: signer.publicKeyFile,
        pullEvery: '10m',
        flags: replicaFlags,
        port,
    })

test.before(async () => {
    signer = await createTestSigner()
    redis = await startRedis()
    remote = await seededRemote()
    // The creates limit goes down for this suite, in a commit every clone starts from.
    const owner = await remote.clone()
    await setWriteLimit(
        owner,
        'creates',
        `{ perPlayer: ${createsPerPlayer}, perAddress: 1000, perSeconds: 600 }`,
    )
    await git(owner, 'commit', '--quiet', '--all', '--message', 'Fewer creates')
    await git(owner, 'push', '--quiet')
    clones = [await remote.clone(), await remote.clone()]
    const port = await freePort()
    balancer = { url: `http://127.0.0.1:${port}`, root: `http://127.0.0.1:${port}/service` }
    replicaFlags = [
        '--redis',
        redis.url,
        '--address',
        balancer.url,
        '--trust-proxy',
        '--multiplayer-url',
        'wss://play.shelf.test/rooms',
    ]
    replicas = await Promise.all(clones.map((clone) => startOn(clone)))
    nginx = await startNginxBalancer(
        port,
        await documentedBlock(),
        replicas.map((replica) => `127.0.0.1:${replica.port}`),
    )
})

test.after(async () => {
    await nginx?.stop()
    await Promise.all(replicas?.map((replica) => replica.stop()) ?? [])
    await redis?.stop()
    await remote?.remove()
})

/** A signed-in player (signed in through the balancer), who can ask any target. */
const player = async (id: string, name: string) => {
    const { session } = await signInPlayer(balancer, signer, id, name)
    const headers = { 'Service-Session': session }
    return {
        id,
        session,
        submit: async (target: Target, path: string, values: Record<string, string>) =>
            answerOf<{ key: string; hashes: string[] } & Record<string, unknown>>(
                await fetch(`${target.root}${path}`, {
                    method: 'POST',
                    headers: { ...headers, 'Content-Type': 'application/json' },
                    body: JSON.stringify({ values: new URLSearchParams(values).toString() }),
                }),
            ),
        upload: (target: Target, path: string, key: string, files: Buffer[]) =>
            uploadFiles(target, path, key, files, session),
        get: async <T>(target: Target, path: string): Promise<Answer<T>> =>
            answerOf<T>(await fetch(`${target.root}${path}`, { headers })),
    }
}

type Player = Awaited<ReturnType<typeof player>>

const commentsOn = async (reader: Player | undefined, target: Target, item: string) => {
    const path = `/levels/${item}/community/comments/list?page=0`
    const answer = reader
        ? await reader.get<{ comments: ServerItemCommunityComment[] }>(target, path)
        : await answerOf<{ comments: ServerItemCommunityComment[] }>(
              await fetch(`${target.root}${path}`),
          )
    assert.is(answer.status, 200, answer.body.message)
    return answer.body.comments.map((comment) => comment.content)
}

const comment = (writer: Player, target: Target, item: string, content: string) =>
    writer.submit(target, `/levels/${item}/community/submit`, { type: 'comment', content })

test('create on one replica, upload on the other: the key is shared', async () => {
    const alice = await player('alice-id', 'Alice')
    const thumbnail = tinyPng(201, 10, 10)
    const submit = await alice.submit(replicas[0]!, '/posts/create', {
        type: 'post',
        title: 'Made across replicas',
        thumbnail: sha1(thumbnail),
    })
    assert.is(submit.status, 200, submit.body.message)
    const upload = await alice.upload(replicas[1]!, '/posts/upload', submit.body.key, [thumbnail])
    assert.is(upload.status, 200, upload.body.message)
    const name = String(upload.body.shouldNavigateToItem)
    for (const replica of replicas) {
        const details = await alice.get<{ item: { title: string } }>(replica, `/posts/${name}`)
        assert.is(details.status, 200, `${replica.url}: ${details.body.message}`)
        assert.is(details.body.item.title, 'Made across replicas')
    }
    // The key worked once, wherever it is sent again.
    const again = await alice.upload(replicas[0]!, '/posts/upload', submit.body.key, [thumbnail])
    assert.is(again.status, 401)
    assert.match(again.body.message!, /unknown, expired or already used/)
})

test('through the balancer, create then upload lands on both replicas in turn and works', async () => {
    const alice = await player('alice-id', 'Alice')
    for (let round = 0; round < 2; round++) {
        const thumbnail = tinyPng(202 + round, 10, 10)
        const submit = await alice.submit(balancer, '/posts/create', {
            type: 'post',
            title: `Balanced ${round}`,
            thumbnail: sha1(thumbnail),
        })
        assert.is(submit.status, 200, submit.body.message)
        const upload = await alice.upload(balancer, '/posts/upload', submit.body.key, [thumbnail])
        assert.is(upload.status, 200, upload.body.message)
    }
})

test('a room created on one replica is joined on the other and listed by both', async () => {
    const host = await player('host-id', 'Host')
    const reserved = await answerOf<{ name: string; key: string }>(
        await fetch(`${replicas[0]!.root}/rooms/create`, {
            method: 'POST',
            headers: { 'Content-Type': 'application/json', 'Service-Session': host.session },
            body: '{}',
        }),
    )
    assert.is(reserved.status, 200, reserved.body.message)
    const { name, key } = reserved.body
    const join = async (target: Target, id: string, roomKey?: string) =>
        answerOf<{ session: string }>(
            await postSigned(
                `${target.root}/rooms/${name}?type=round&title=Across`,
                await signed(signer, joinRoomBody(balancer.url, name, testProfile(id, id))),
                roomKey ? { 'Service-Room-Key': roomKey } : {},
            ),
        )
    const opened = await join(replicas[1]!, 'host-id', key)
    assert.is(opened.status, 200, opened.body.message)
    const reused = await join(replicas[0]!, 'host-id', key)
    assert.is(reused.status, 401, 'the key worked once, on either replica')
    const joined = await join(replicas[0]!, 'guest-id')
    assert.is(joined.status, 200, joined.body.message)
    for (const target of [...replicas, balancer]) {
        const list = await answerOf<{ items: { name: string }[] }>(
            await fetch(`${target.root}/rooms/list`),
        )
        assert.is(list.status, 200)
        assert.ok(
            list.body.items.some((room) => room.name === name),
            `${target.url} lists the room`,
        )
    }
})

test('a player reads their own comment on either replica at once; others see it soon', async () => {
    const alice = await player('alice-id', 'Alice')
    for (const [writer, reader] of [
        [0, 1],
        [1, 0],
    ] as const) {
        const content = `Read back on replica ${reader}`
        const written = await comment(alice, replicas[writer]!, 'city-lights', content)
        assert.is(written.status, 200, written.body.message)
        // No pull is due for ten minutes: read-your-writes brings it, before the answer.
        assert.ok(
            (await commentsOn(alice, replicas[reader]!, 'city-lights')).includes(content),
            `the writer reads it on replica ${reader} right away`,
        )
    }
    const content = 'Seen by a guest through the push signal'
    assert.is((await comment(alice, replicas[0]!, 'first-steps', content)).status, 200)
    await eventually('a guest on the other replica sees it', async () =>
        (await commentsOn(undefined, replicas[1]!, 'first-steps')).includes(content),
    )
})

test('write limits count across replicas', async () => {
    const carol = await player('carol-id', 'Carol')
    const statuses: number[] = []
    for (let index = 0; index < createsPerPlayer + 1; index++) {
        const answer = await carol.submit(replicas[index % 2]!, '/posts/create', {
            type: 'post',
            title: `Limit ${index}`,
            thumbnail: sha1(tinyPng(210 + index, 10, 10)),
        })
        statuses.push(answer.status)
        if (answer.status === 429) assert.match(answer.body.message!, /you may make 3 creates/)
    }
    assert.equal(statuses, [...Array(createsPerPlayer).fill(200), 429])
})

test('a visitor through the balancer is never the owner, and the client address comes from the proxy', async () => {
    const problems = await fetch(`${balancer.url}/_shelf/problems`)
    assert.is(problems.status, 403)
    // Straight to a replica from this machine: still not the owner (it is public, and behind a proxy).
    assert.is((await fetch(`${replicas[0]!.url}/_shelf/problems`)).status, 403)
})

test('Redis stopped: reads go on, writes answer 503 saying why; Redis back: writes work again by themselves', async () => {
    const dave = await player('dave-id', 'Dave')
    await redis.kill()
    for (const target of [balancer, ...replicas]) {
        const list = await fetch(`${target.root}/levels/list`)
        assert.is(list.status, 200, `${target.url} reads without Redis`)
    }
    const refused = await comment(dave, balancer, 'morning-dew', 'While Redis is away')
    assert.is(refused.status, 503)
    assert.match(refused.body.message!, /shared state .* cannot be reached/)
    assert.ok(refused.headers.get('retry-after'))
    await redis.start()
    await eventually('writes work again on both replicas', async () => {
        for (const replica of replicas) {
            const answer = await comment(dave, replica, 'morning-dew', `Back on ${replica.port}`)
            if (answer.status !== 200) return false
        }
        return true
    })
})

test('kill -9 of a replica during 50 writes: every acknowledged write is on both after recovery', async () => {
    const writers = await Promise.all(
        Array.from({ length: 5 }, (_, index) => player(`rush-${index}`, `Rush${index}`)),
    )
    let acknowledged: string[] = []
    const writes = Array.from({ length: 50 }, async (_, index) => {
        const content = `rush ${index}`
        const answer = await comment(writers[index % 5]!, balancer, 'night-drive', content).catch(
            () => undefined,
        )
        if (answer?.status === 200) acknowledged = [...acknowledged, content]
        return answer?.status
    })
    // Mid-way: once some writes are answered, the second replica dies.
    await eventually('some writes are answered', async () => acknowledged.length >= 5)
    await replicas[1]!.kill()
    const statuses = await Promise.all(writes)
    assert.ok(acknowledged.length >= 5, `acknowledged: ${acknowledged.length}`)
    assert.ok(
        statuses.every((status) => status === undefined || status === 200 || status >= 500),
        `statuses: ${statuses.join(' ')}`,
    )
    // What the survivor acknowledged reaches the remote with its next push (after the push turn
    // the killed replica held has freed itself).
    await eventually(
        'the surviving replica pushed every write it made',
        async () =>
            (await git(clones[0]!, 'rev-parse', 'HEAD')) ===
            (await git(remote.bare, 'rev-parse', 'main')),
    )
    replicas[1] = await startOn(clones[1]!, replicas[1]!.port)
    // Started again, it pulled before it said it listens: it serves them all at once, its own
    // unpushed ones included, and pushes those for the survivor.
    const missing = (served: Set<string>) => acknowledged.filter((content) => !served.has(content))
    assert.equal(missing(await nightDriveComments(replicas[1]!)), [], 'the restarted replica')
    await eventually(
        'the surviving replica serves every acknowledged write',
        async () => missing(await nightDriveComments(replicas[0]!)).length === 0,
    )
})

/** Every comment on night-drive a replica serves, all pages. */
const nightDriveComments = async (replica: Replica) => {
    const page = async (index: number) =>
        answerOf<{ pageCount: number; comments: ServerItemCommunityComment[] }>(
            await fetch(`${replica.root}/levels/night-drive/community/comments/list?page=${index}`),
        )
    const first = await page(0)
    const rest = await Promise.all(
        Array.from({ length: first.body.pageCount - 1 }, (_, index) => page(index + 1)),
    )
    return new Set(
        [first, ...rest].flatMap((answer) => answer.body.comments.map((entry) => entry.content)),
    )
}

test.run()
