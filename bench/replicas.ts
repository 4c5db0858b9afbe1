/**
 * What replicas behind a load balancer do, as docs/replicas.md deploys them: see `usage`.
 */
import { readFile } from 'node:fs/promises'
import { parseArgs } from 'node:util'
import { git, seededRemote, type Remote } from '../test/support/git-repos.js'
import { freePort, startNginxBalancer } from '../test/support/nginx.js'
import { answerOf } from '../test/support/player.js'
import { startRedis } from '../test/support/redis.js'
import { startReplica, type Replica } from '../test/support/replica.js'
import { setWriteLimit } from '../test/support/write-limits.js'
import {
    authenticateBody,
    createTestSigner,
    postSigned,
    signed,
    testProfile,
    type TestSigner,
} from '../test/support/signing.js'
import { formatNumber, log, percentile, renderTable } from './output.js'

const usage = `node --import tsx bench/replicas.ts [--replicas 1,2,4] [--seconds 10] [--writers 8] [--samples 20]

The deployment of docs/replicas.md on this machine: a real redis-server, shelf serve processes on
clones of one bare remote (--git --git-pull --git-push --redis), nginx round-robin with the block
docs/replicas.md shows; for each count of --replicas:

1. Writes per second and their answer times (median, p99) through the balancer: --writers
   players comment in a loop for --seconds (0 skips it); each answer is a commit on the remote.
2. Write to visible: --samples comments written on the first replica one after another, each
   timed from its answer until every other replica serves it to a guest (asked every 5 ms;
   pulls are 10 minutes apart, so the push signal does it). Median and p99; the target is 1 s.

Everything runs on this one machine: the figures say what replicas cost each other here, not what
separate machines do, and other work on the machine counts. Measure on a quiet machine (see the
load average printed at the end), e.g. for write to visible alone:

  node --import tsx bench/replicas.ts --replicas 2,4 --seconds 0 --samples 50`

const { values } = parseArgs({
    options: {
        replicas: { type: 'string', default: '1,2,4' },
        seconds: { type: 'string', default: '10' },
        writers: { type: 'string', default: '8' },
        samples: { type: 'string', default: '20' },
        help: { type: 'boolean', short: 'h', default: false },
    },
})
if (values.help) {
    console.log(usage)
    process.exit(0)
}
const counts = values.replicas.split(',').map(Number)
const seconds = Number(values.seconds)
const writers = Number(values.writers)
const samples = Number(values.samples)
if (![...counts, seconds, writers, samples].every((value) => Number.isInteger(value) && value >= 0))
    throw new Error(`whole numbers only:\n\n${usage}`)

type Target = { url: string; root: string }

const signIn = async (signer: TestSigner, balancer: Target, id: string) => {
    const answer = await answerOf<{ session: string }>(
        await postSigned(
            `${balancer.root}/authenticate`,
            await signed(signer, authenticateBody(balancer.url, testProfile(id, id))),
        ),
    )
    if (answer.status !== 200) throw new Error(`sign-in: ${answer.body.message}`)
    return answer.body.session
}

const comment = async (target: Target, session: string, content: string) => {
    const started = performance.now()
    const response = await fetch(`${target.root}/levels/night-drive/community/submit`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'Service-Session': session },
        body: JSON.stringify({
            values: new URLSearchParams({ type: 'comment', content }).toString(),
        }),
    })
    const body = await response.text()
    return { status: response.status, ms: performance.now() - started, body }
}

const serves = async (replica: Replica, content: string) => {
    const response = await fetch(
        `${replica.root}/levels/night-drive/community/comments/list?page=0`,
    )
    const body = (await response.json()) as { comments: { content: string }[] }
    return body.comments.some((entry) => entry.content === content)
}

/** No rate stops the bench: every write kind allows far more than it makes. */
const unlimited = async (remote: Remote) => {
    const owner = await remote.clone()
    await setWriteLimit(
        owner,
        'comments',
        '{ perPlayer: 1000000, perAddress: 1000000, perSeconds: 60 }',
    )
    await git(owner, 'commit', '--quiet', '--all', '--message', 'No limits for the bench')
    await git(owner, 'push', '--quiet')
}

const documentedBlock = async () =>
    /```nginx\n(upstream shelf[\s\S]*?)```/.exec(
        await readFile(new URL('../docs/replicas.md', import.meta.url), 'utf8'),
    )![1]!

const round = async (signer: TestSigner, count: number) => {
    const redis = await startRedis()
    const remote = await seededRemote()
    await unlimited(remote)
    const port = await freePort()
    const balancer = { url: `http://127.0.0.1:${port}`, root: `http://127.0.0.1:${port}/service` }
    const replicas: Replica[] = []
    for (let index = 0; index < count; index++)
        replicas.push(
            await startReplica({
                content: await remote.clone(),
                signatureKey: signer.publicKeyFile,
                pullEvery: '10m',
                flags: ['--redis', redis.url, '--address', balancer.url, '--trust-proxy'],
            }),
        )
    const nginx = await startNginxBalancer(
        port,
        await documentedBlock(),
        replicas.map((replica) => `127.0.0.1:${replica.port}`),
    )
    try {
        const sessions = await Promise.all(
            Array.from({ length: writers }, (_, index) =>
                signIn(signer, balancer, `writer-${index}`),
            ),
        )
        if (seconds) log(`${count} replica(s): ${writers} writers for ${seconds} s`)
        const times: number[] = []
        let refused = 0
        const until = performance.now() + seconds * 1000
        const started = performance.now()
        await Promise.all(
            sessions.map(async (session, writer) => {
                for (let index = 0; performance.now() < until; index++) {
                    const { status, ms } = await comment(balancer, session, `w${writer}-${index}`)
                    if (status === 200) times.push(ms)
                    else refused++
                }
            }),
        )
        const elapsed = (performance.now() - started) / 1000
        const visible: number[] = []
        if (count > 1) {
            log(`${count} replica(s): ${samples} writes until every other replica serves them`)
            for (let sample = 0; sample < samples; sample++) {
                const content = `visible ${sample}`
                const { status, body } = await comment(replicas[0]!, sessions[0]!, content)
                if (status !== 200) throw new Error(`the sample write answered ${status}: ${body}`)
                const answered = performance.now()
                await Promise.all(
                    replicas.slice(1).map(async (replica) => {
                        while (!(await serves(replica, content)))
                            await new Promise((resolve) => setTimeout(resolve, 5))
                    }),
                )
                visible.push(performance.now() - answered)
            }
        }
        return {
            count,
            perSecond: seconds ? times.length / elapsed : undefined,
            median: percentile(times, 0.5),
            p99: percentile(times, 0.99),
            refused,
            visibleMedian: visible.length ? percentile(visible, 0.5) : undefined,
            visibleP99: visible.length ? percentile(visible, 0.99) : undefined,
            load: (await loadAverage())[0],
        }
    } finally {
        await nginx.stop()
        for (const replica of replicas) await replica.stop()
        await redis.stop()
        await remote.remove()
    }
}

/** The machine's load average over 1, 5 and 15 minutes (none where /proc is not). */
const loadAverage = async () =>
    (await readFile('/proc/loadavg', 'utf8').catch(() => '')).split(' ').slice(0, 3)

const signer = await createTestSigner()
const rows = []
for (const count of counts) rows.push(await round(signer, count))
console.log(
    renderTable(
        [
            'replicas',
            'writes/s',
            'answer median ms',
            'answer p99 ms',
            'refused',
            'visible median ms',
            'visible p99 ms',
            'load (1 min)',
        ],
        rows.map((row) => [
            String(row.count),
            formatNumber(row.perSecond, 1),
            formatNumber(row.median, 0),
            formatNumber(row.p99, 0),
            String(row.refused),
            formatNumber(row.visibleMedian, 0),
            formatNumber(row.visibleP99, 0),
            row.load ?? '',
        ]),
        [],
    ),
)
console.log(`load average at the end: ${(await loadAverage()).join(' ')}`)
