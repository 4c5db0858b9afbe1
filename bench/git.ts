/**
 * `node --import tsx bench/git.ts [--commits 1000] [--writes 100]`: what --git costs and does.
 *
 * 1. A comment's answer time with and without --git (and with --git-push to a remote on the
 *    same disk), `--writes` comments in a row on each, the server watching its folder.
 * 2. From a push to the remote to the change being served by a replica (--git-pull): after a
 *    signed webhook, and by the pull interval alone (1 s here; the default is 1 m).
 * 3. 1,000 commits an hour, compressed: `--commits` comment commits in a row through the git
 *    layer, the commit time per hundred (does committing slow down as history grows?) and the
 *    repository's size as it goes, and after a full `git gc`.
 *
 * The servers run in this process on real repositories in temporary folders (test/support
 * makes them: a bare remote and clones, a signed-in player). Tables go to stdout.
 */
import { existsSync } from 'node:fs'
import { mkdir, readdir, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { parseArgs } from 'node:util'
import type { ShelfOptions } from '../src/config.js'
import { ContentRepository } from '../src/git/content-repository.js'
import { GitProblems } from '../src/git/git-problems.js'
import { WriteCommits } from '../src/git/write-commits.js'
import { generatedName } from '../src/writes/content-writer.js'
import { signWebhookBody } from '../src/git/webhook-signature.js'
import { git, raiseWriteRates, seededRemote } from '../test/support/git-repos.js'
import { signInPlayer, type Player } from '../test/support/player.js'
import { copyContent, getJson, startTestServer } from '../test/support/server.js'
import { createTestSigner, type TestSigner } from '../test/support/signing.js'
import { formatNumber, log, renderTable } from './output.js'

const { values } = parseArgs({
    options: {
        commits: { type: 'string', default: '1000' },
        writes: { type: 'string', default: '100' },
        pushes: { type: 'string', default: '5' },
    },
})
const commits = Number(values.commits)
const writes = Number(values.writes)
const pushes = Number(values.pushes)
const secret = 'the webhook secret of this bench'

const percentile = (sorted: number[], fraction: number) =>
    sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))]!
const summary = (times: number[]) => {
    const sorted = [...times].sort((a, b) => a - b)
    return {
        median: percentile(sorted, 0.5),
        p95: percentile(sorted, 0.95),
        mean: times.reduce((sum, time) => sum + time, 0) / times.length,
    }
}

const start = (signer: TestSigner, content: string, git?: ShelfOptions['git']) =>
    startTestServer({
        content,
        watch: true,
        git,
        signIn: {
            signatureKey: signer.publicKeyFile,
            sessionSecret: 'the session secret of this bench',
        },
    })

/** `count` comments in a row; the answer time of each, in ms. */
const commentTimes = async (player: Player, count: number, label: string) => {
    const times: number[] = []
    for (let index = 0; index < count; index++) {
        const started = performance.now()
        const answer = await player.submit('/levels/city-lights/community/submit', {
            type: 'comment',
            content: `${label} ${index}`,
        })
        times.push(performance.now() - started)
        if (answer.status !== 200)
            throw new Error(`comment ${index} answered ${answer.status}: ${answer.body.message}`)
    }
    return times
}

const repositoryKiB = async (clone: string) => {
    const counts = Object.fromEntries(
        (await git(clone, 'count-objects', '-v'))
            .split('\n')
            .map((line) => line.split(': ') as [string, string]),
    )
    return {
        loose: Number(counts.count),
        looseKiB: Number(counts.size),
        packKiB: Number(counts['size-pack']),
    }
}

const measureWrites = async (signer: TestSigner) => {
    const remote = await seededRemote()
    const plain = await copyContent()
    await raiseWriteRates(plain)
    const rows: string[][] = []
    const setups: [string, string, ShelfOptions['git']][] = [
        ['without --git', plain, undefined],
        ['--git', await remote.clone(), { push: false }],
        ['--git --git-push', await remote.clone(), { push: true }],
    ]
    let baseline = 0
    for (const [label, content, options] of setups) {
        const server = await start(signer, content, options)
        const player = await signInPlayer(server, signer, 'bench-id', 'Bench')
        await commentTimes(player, 10, 'warm-up')
        const { median, p95, mean } = summary(await commentTimes(player, writes, label))
        baseline ||= median
        rows.push([
            label,
            formatNumber(median, 1),
            formatNumber(p95, 1),
            formatNumber(mean, 1),
            `${formatNumber(median / baseline, 2)}×`,
        ])
        await server.stop()
    }
    await remote.remove()
    console.log(`\nA comment's answer time, ${writes} in a row (ms)\n`)
    console.log(renderTable(['server', 'median', 'p95', 'mean', 'median ratio'], rows, [0]))
}

const measurePushToServed = async () => {
    const remote = await seededRemote()
    const replica = await remote.clone()
    const author = await remote.clone()
    const server = await startTestServer({
        content: replica,
        watch: true,
        git: { push: true, pull: { everyMs: 1000, webhookSecret: secret } },
    })
    const served = async (title: string) =>
        (
            await getJson<{ items: { title: string }[] }>(`${server.root}/posts/list`)
        ).body.items.some((item) => item.title === title)
    const rows: string[][] = []
    for (const way of ['webhook', 'pull interval (1 s)']) {
        const times: number[] = []
        for (let round = 0; round < pushes; round++) {
            const title = `${way} ${round}`
            await writeFile(
                join(author, `posts/bench-${way.length}-${round}.md`),
                `---\ntitle: ${title}\ntime: 2026-03-01T00:00:00Z\n---\n`,
            )
            await git(author, 'add', '--all')
            await git(author, 'commit', '--quiet', '-m', title)
            await git(author, 'push', '--quiet')
            const pushed = performance.now()
            if (way === 'webhook') {
                const body = JSON.stringify({ ref: 'refs/heads/main' })
                await fetch(`${server.url}/_shelf/git/webhook`, {
                    method: 'POST',
                    headers: { 'X-Hub-Signature-256': signWebhookBody(secret, body) },
                    body,
                })
            }
            while (!(await served(title))) await new Promise((resolve) => setTimeout(resolve, 10))
            times.push(performance.now() - pushed)
        }
        const { median, p95, mean } = summary(times)
        rows.push([
            way,
            String(pushes),
            formatNumber(median, 0),
            formatNumber(p95, 0),
            formatNumber(mean, 0),
        ])
    }
    await server.stop()
    await remote.remove()
    console.log('\nFrom a push to the remote to the change served by a replica (ms)\n')
    console.log(
        renderTable(['how the replica learns', 'pushes', 'median', 'p95', 'mean'], rows, [0]),
    )
}

/**
 * The git layer alone, as a --git server drives it: a comment file written, then committed by
 * WriteCommits. (Through HTTP the answer time also grows with the item's comment count, which
 * every reload reads again; that is the catalog's cost, and it would hide git's.)
 */
const measureHistory = async () => {
    const remote = await seededRemote()
    const clone = await remote.clone()
    const repository = await ContentRepository.open(clone)
    const commitsOf = new WriteCommits(repository, new GitProblems())
    const user = { id: 'bench-id', handle: '1000', name: 'Bench' }
    const levels = (await readdir(join(clone, 'levels'), { withFileTypes: true }))
        .filter((entry) => entry.isDirectory())
        .map((entry) => entry.name)
    const before = await repositoryKiB(clone)
    const rows: string[][] = []
    const started = performance.now()
    let hundred: number[] = []
    for (let index = 0; index < commits; index++) {
        const level = levels[index % levels.length]!
        const path = `levels/${level}/comments/${generatedName()}.md`
        const bytes = `---\nauthor: Bench#1000\nauthorId: bench-id\ntime: ${new Date().toISOString()}\n---\nComment ${index}\n`
        await mkdir(join(clone, dirname(path)), { recursive: true })
        await writeFile(join(clone, path), bytes)
        const committing = performance.now()
        if (
            !(await commitsOf.commit([{ path, bytes }], {
                user,
                did: `commented on levels/${level}`,
            }))
        )
            throw new Error(`commit ${index} was not made`)
        hundred.push(performance.now() - committing)
        if (hundred.length === 100 || index === commits - 1) {
            const { median, p95 } = summary(hundred)
            const size = await repositoryKiB(clone)
            rows.push([
                `${index + 2 - hundred.length}–${index + 1}`,
                formatNumber(median, 1),
                formatNumber(p95, 1),
                String(size.loose),
                String(size.looseKiB + size.packKiB),
            ])
            hundred = []
        }
    }
    const elapsedS = (performance.now() - started) / 1000
    await repository.exclusive(async () => undefined)
    // The last housekeeping packs in the background (gc.pid is its lock): its result is part of "after".
    while (existsSync(join(clone, '.git/gc.pid')))
        await new Promise((resolve) => setTimeout(resolve, 50))
    const after = await repositoryKiB(clone)
    const gcStarted = performance.now()
    await git(clone, 'gc', '--quiet')
    const gcMs = performance.now() - gcStarted
    const packed = await repositoryKiB(clone)
    const statusStarted = performance.now()
    await git(clone, 'status', '--porcelain')
    const statusMs = performance.now() - statusStarted
    await remote.remove()
    console.log(
        `\n${commits} comment commits in a row (the git layer alone, ${formatNumber(elapsedS, 1)} s in all): commit time per hundred and .git after it\n`,
    )
    console.log(
        renderTable(
            ['commits', 'median ms', 'p95 ms', 'loose objects', '.git objects KiB'],
            rows,
            [0],
        ),
    )
    console.log(
        `\n.git objects: ${before.looseKiB + before.packKiB} KiB before; ${after.looseKiB + after.packKiB} KiB after ${commits} commits (+${formatNumber((after.looseKiB + after.packKiB - before.looseKiB - before.packKiB) / commits, 1)} KiB per commit with git gc --auto every 100)`,
    )
    console.log(
        `  a full git gc then (${formatNumber(gcMs / 1000, 1)} s): ${packed.looseKiB + packed.packKiB} KiB (+${formatNumber((packed.looseKiB + packed.packKiB - before.looseKiB - before.packKiB) / commits, 2)} KiB per commit); git status takes ${formatNumber(statusMs, 0)} ms`,
    )
}

const signer = await createTestSigner()
log('write times…')
await measureWrites(signer)
log('push to served…')
await measurePushToServed()
log(`${commits} commits…`)
await measureHistory()
