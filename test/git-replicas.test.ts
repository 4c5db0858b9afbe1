/**
 * Replicas: two `shelf serve` processes, each on its own clone of one bare remote, with
 * --git --git-pull --git-push and one session secret. What is written on one is served by
 * the other within a pull interval; writes on both at the same moment are all kept, and every
 * clone and the remote end on the same commit.
 */
import type { ServerItemCommunityComment } from '@sonolus/core'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { playerEmailDomain } from '../src/git/identity.js'
import { eventually } from './support/eventually.js'
import { git, seededRemote, type Remote } from './support/git-repos.js'
import { startReplica, type Replica } from './support/replica.js'
import { signInPlayer, type Player } from './support/player.js'
import { createTestSigner, type TestSigner } from './support/signing.js'
import { getJson } from './support/server.js'

const test = suite('git: replicas converge')
let signer: TestSigner
let remote: Remote
let clones: string[]
let servers: Replica[]
let alice: Player
let bob: Player

test.before(async () => {
    signer = await createTestSigner()
    remote = await seededRemote()
    clones = [await remote.clone(), await remote.clone()]
    servers = await Promise.all(
        clones.map((content) =>
            startReplica({ content, signatureKey: signer.publicKeyFile, pullEvery: '250ms' }),
        ),
    )
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
