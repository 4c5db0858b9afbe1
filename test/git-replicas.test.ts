/**
 * Replicas: two `shelf serve` processes, each on its own clone of one bare remote, with
 * --git --git-pull --git-push and one session secret. What is written on one is served by
 * the other within a pull interval; writes on both at the same moment are all kept, and every
 * clone and the remote end on the same commit.
 */
import type { ServerItemCommunityComment } from '@sonolus/core'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { rm } from 'node:fs/promises'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { playerEmailDomain } from '../src/git/identity.js'
import { git, seededRemote, type Remote } from './support/git-repos.js'
import { signInPlayer, type Player } from './support/player.js'
import { createTestSigner, type TestSigner } from './support/signing.js'
import { getJson, temporaryFolder } from './support/server.js'

const test = suite('git: replicas converge')
let signer: TestSigner
let remote: Remote
let clones: string[]
let servers: Replica[]
let alice: Player
let bob: Player

type Replica = { url: string; root: string; stop(): Promise<void> }

const repository = fileURLToPath(new URL('..', import.meta.url))

/** `shelf serve` on a clone, as a replica runs it; resolves once it listens and has said it follows the remote. */
const startReplica = async (content: string): Promise<Replica> => {
    const cache = await temporaryFolder('shelf-replica-cache-')
    const args = [
        '--content',
        content,
        '--cache',
        cache,
        '--host',
        '127.0.0.1',
        '--port',
        '0',
        '--git',
        '--git-pull',
        '--git-push',
        '--git-pull-every',
        '250ms',
    ]
    const env: NodeJS.ProcessEnv = {
        ...process.env,
        SHELF_SESSION_SECRET: 'the session secret every replica shares',
    }
    const child = spawn(
        process.execPath,
        [
            '--import',
            'tsx',
            'src/cli/main.ts',
            'serve',
            ...args,
            '--signature-key',
            signer.publicKeyFile,
        ],
        { cwd: repository, env, stdio: ['ignore', 'pipe', 'inherit'] },
    )
    const lines: string[] = []
    let url: string | undefined
    for await (const line of createInterface({ input: child.stdout! })) {
        lines.push(line)
        url ??= /^listening on (\S+)$/.exec(line)?.[1]
        if (url && line.startsWith('  pushing player commits to origin/main')) break
    }
    assert.ok(url, `the replica did not start:\n${lines.join('\n')}`)
    assert.ok(lines.includes('  following origin/main every 0.25 s'), lines.join('\n'))
    child.stdout!.resume()
    return {
        url: url!,
        root: `${url}/service`,
        stop: async () => {
            child.kill('SIGTERM')
            if (child.exitCode === null) await once(child, 'exit')
            await rm(cache, { recursive: true, force: true })
        },
    }
}

test.before(async () => {
    signer = await createTestSigner()
    remote = await seededRemote()
    clones = [await remote.clone(), await remote.clone()]
    servers = await Promise.all(clones.map(startReplica))
    alice = await signInPlayer(servers[0]!, signer, 'alice-id', 'Alice')
    bob = await signInPlayer(servers[1]!, signer, 'bob-id', 'Bob')
})

test.after(async () => {
    await Promise.all(servers?.map((server) => server.stop()) ?? [])
    await remote?.remove()
})

const comments = async (server: Replica, item: string) =>
    (
        await getJson<{ comments: ServerItemCommunityComment[] }>(
            `${server.root}/levels/${item}/community/comments/list?page=0`,
        )
    ).body.comments.map((comment) => comment.content)

const eventually = async (what: string, check: () => Promise<boolean>) => {
    for (const started = Date.now(); Date.now() - started < 15_000;) {
        if (await check()) return
        await new Promise((resolve) => setTimeout(resolve, 50))
    }
    assert.unreachable(`not within 15 s: ${what}`)
}

/** The remote and every clone on one commit. */
const converged = async () => {
    const heads = await Promise.all([
        git(remote.bare, 'rev-parse', 'main'),
        ...clones.map((clone) => git(clone, 'rev-parse', 'HEAD')),
    ])
    return new Set(heads).size === 1
}

test('a session from one replica is taken by the other: they share the secret', async () => {
    const info = await getJson(`${servers[1]!.root}/levels/info`, {
        headers: { 'Service-Session': alice.session },
    })
    assert.is(info.status, 200)
})

test('a comment written on one replica is served by the other within a pull interval', async () => {
    const answer = await alice.submit('/levels/city-lights/community/submit', {
        type: 'comment',
        content: 'Written on the first replica',
    })
    assert.is(answer.status, 200, answer.body.message)
    await eventually('the second replica serves it', async () =>
        (await comments(servers[1]!, 'city-lights')).includes('Written on the first replica'),
    )
    await eventually('every clone and the remote agree', converged)
})

test('two writes at the same moment, one on each replica: both kept, both served by both', async () => {
    const [first, second] = await Promise.all([
        alice.submit('/levels/first-steps/community/submit', {
            type: 'comment',
            content: 'Same moment, first replica',
        }),
        bob.submit('/levels/first-steps/community/submit', {
            type: 'comment',
            content: 'Same moment, second replica',
        }),
    ])
    assert.is(first.status, 200, first.body.message)
    assert.is(second.status, 200, second.body.message)
    for (const server of servers) {
        await eventually(`${server.url} serves both`, async () => {
            const served = await comments(server, 'first-steps')
            return (
                served.includes('Same moment, first replica') &&
                served.includes('Same moment, second replica')
            )
        })
    }
    await eventually('every clone and the remote agree', converged)
    const authors = await git(remote.bare, 'log', '-2', '--format=%ae %s', 'main')
    assert.match(
        authors,
        new RegExp(`alice-id@${playerEmailDomain} Alice#1000 commented on levels/first-steps`),
    )
    assert.match(
        authors,
        new RegExp(`bob-id@${playerEmailDomain} Bob#1000 commented on levels/first-steps`),
    )
})

test('twenty writes spread over both replicas at once: twenty commits on the remote in fewer pushes, twenty comments on both, no conflict', async () => {
    const before = Number(await git(remote.bare, 'rev-list', '--count', 'main'))
    // The remote keeps a log of its branch's updates: one entry per push that went through.
    await git(remote.bare, 'config', 'core.logAllRefUpdates', 'always')
    const answers = await Promise.all(
        Array.from({ length: 20 }, (_, index) =>
            (index % 2 ? bob : alice).submit('/levels/morning-dew/community/submit', {
                type: 'comment',
                content: `rush ${index}`,
            }),
        ),
    )
    assert.equal(
        answers.map((answer) => answer.status),
        Array(20).fill(200),
    )
    await eventually('every clone and the remote agree', converged)
    assert.is(Number(await git(remote.bare, 'rev-list', '--count', 'main')), before + 20)
    const pushes = (await git(remote.bare, 'reflog', 'show', '--format=%H', 'main'))
        .split('\n')
        .filter(Boolean).length
    assert.ok(
        pushes < 20,
        `commits made while a push was on its way went together: ${pushes} pushes for 20 commits`,
    )
    // HEAD moves a moment before the pulled files are served: the list follows.
    for (const server of servers) {
        await eventually(`${server.url} lists twenty comments`, async () => {
            const pages = await Promise.all(
                [0, 1].map((page) =>
                    getJson<{ comments: ServerItemCommunityComment[] }>(
                        `${server.root}/levels/morning-dew/community/comments/list?page=${page}`,
                    ),
                ),
            )
            return (
                new Set(
                    pages.flatMap((page) => page.body.comments.map((comment) => comment.content)),
                ).size === 20
            )
        })
    }
    for (const clone of clones)
        assert.is(await git(clone, 'branch', '--list', 'shelf/conflict/*'), '')
})

test.run()
