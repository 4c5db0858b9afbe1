/**
 * `node --import tsx bench/growth.ts [--comments 10,1000,10000] [--replays 100000] [--writes 30]`:
 * does a write cost what it writes, however much its neighbours hold?
 *
 * 1. Comments: a level of the example content holding `--comments` comments, then `--writes`
 *    more posted by a signed-in player. For each: the answer's time, and the time from
 *    the post until the comment list's first page shows it.
 * 2. Plays: a replays folder of `--replays` replays (and one of the example's three), then
 *    `--writes` results submitted (submit, upload), each becoming a replay. For each:
 *    the answer's time (both requests), and the time until the replay list's first page and the
 *    level's details show it.
 * 3. For every size, the longest the event loop stood still during its writes (a 1 ms
 *    timer's lateness, the client's own work in this process included), on the clock and in
 *    the main thread's CPU time: on a busy machine the process also waits for a core, which the
 *    clock counts and the CPU time does not (the worker threads' and the thread pool's work
 *    beside it counts in neither; it is the smaller of the two that is held to the target); and
 *    the longest in the 11 s after them all, when the servers save their hash caches.
 *
 * Each figure is printed against its target: the median at the largest size within 1.5× of the
 * smallest, and no stall over 20 ms. The servers run in this process on copies of the example
 * content in temporary folders, watching them, with the load average beside the figures: on a
 * busy machine they are upper bounds.
 *
 * A scenario's servers, one per size, are all up before any is measured, and take their writes in
 * turn (one into 10 comments, one into 1,000, one into 10,000, and again): a write's answer waits
 * for the disk, whose time drifts by half over a minute, and sizes measured one after another
 * each met a different disk. Taken in turn, every size meets the same.
 */
import { execFile } from 'node:child_process'
import { loadavg } from 'node:os'
import { mkdir, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { parseArgs, promisify } from 'node:util'
import { gzipSync } from 'node:zlib'
import { sha1 } from '../test/support/fixtures.js'
import { signInPlayer, type Player } from '../test/support/player.js'
import { levelDataHash, perfectResult, replayDataOf } from '../test/support/plays.js'
import { copyContent, getJson, startTestServer, type TestServer } from '../test/support/server.js'
import { createTestSigner, type TestSigner } from '../test/support/signing.js'
import { generousWriteLimits } from '../test/support/write-limits.js'
import { parseCount } from './generate-pack-tree.js'
import { mainThreadCpuNs } from './main-thread-cpu.js'
import { formatNumber, log, renderTable } from './output.js'

const { values } = parseArgs({
    options: {
        comments: { type: 'string', default: '10,1000,10000' },
        replays: { type: 'string', default: '100000' },
        writes: { type: 'string', default: '30' },
    },
})
const sizes = (option: string, text: string) =>
    text.split(',').map((size) => parseCount(option, size.trim()))
const commentCounts = sizes('--comments', values.comments)
const replayCounts = sizes('--replays', values.replays)
const writes = parseCount('--writes', values.writes)

const level = 'first-steps'
/** A little more than the quiet the server waits for before it saves its hash cache (server.ts). */
const hashCacheSavedAfterMs = 11_000
/** Writes made before the measured ones, so that the code they run is compiled. */
const warmUpWrites = 10
const answerRatioTarget = 1.5
const stallTargetMs = 20

const median = (times: number[]) => [...times].sort((a, b) => a - b)[Math.floor(times.length / 2)]!
const loadAverage = () =>
    loadavg()
        .map((value) => value.toFixed(1))
        .join(' ')

/** Files written with few awaits in flight: tens of thousands of them. */
const writeMany = async (files: [string, string | Buffer][]) => {
    const inFlight = 64
    for (let start = 0; start < files.length; start += inFlight)
        await Promise.all(
            files
                .slice(start, start + inFlight)
                .map(([path, bytes]) => writeFile(path, bytes, { flag: 'w' })),
        )
}

/**
 * Puts what was generated on disk before the server starts: left in the page cache, the first
 * writes measured would pay for it, as a write's fsync makes ext4 commit its journal with the
 * data of every file written before (tens of thousands of them).
 */
const onDisk = (folder: string) => promisify(execFile)('sync', ['-f', folder])

/** The event loop's longest stall while it runs: a 1 ms timer's lateness, on the clock and in the main thread's CPU time. */
const stallWatch = () => {
    let wall = 0
    let cpu = 0
    let last = performance.now()
    let lastCpu = mainThreadCpuNs()
    const timer = setInterval(() => {
        const now = performance.now()
        const used = mainThreadCpuNs()
        const late = now - last - 1
        if (late > wall) wall = late
        cpu = Math.max(cpu, Math.min(late, (used - lastCpu) / 1e6))
        last = now
        lastCpu = used
    }, 1)
    return {
        stop: () => {
            clearInterval(timer)
            return { wall, cpu }
        },
    }
}

/** One size of a scenario: its server, and a write into it that says how long it took to answer and to show. */
type Subject = {
    server: TestServer
    write: (index: number) => Promise<{ answer: number; shown: number[] }>
    close: () => Promise<void>
}

/**
 * Measures `writes` writes into each subject, taken in turn, with the loop's longest stall during
 * each subject's writes, and each server's own time to reload what each wrote (its `reload`
 * reports): the answer also waits for the disk to have the files, which on a busy disk varies
 * more than anything Shelf does.
 */
const measureInTurn = async (subjects: Subject[]) => {
    for (const { write } of subjects)
        for (let index = 0; index < warmUpWrites; index++) await write(-1 - index)
    const runs = subjects.map(({ server }) => {
        const reloads: number[] = []
        const onReload = ({ ms }: { ms: number }) => reloads.push(ms)
        server.events.on('reload', onReload)
        return {
            reloads,
            stopListening: () => server.events.off('reload', onReload),
            answers: [] as number[],
            shown: [] as number[][],
            stall: { wall: 0, cpu: 0 },
        }
    })
    for (let index = 0; index < writes; index++)
        for (const [at, { write }] of subjects.entries()) {
            const run = runs[at]!
            const stalls = stallWatch()
            const times = await write(index)
            const stall = stalls.stop()
            run.stall = {
                wall: Math.max(run.stall.wall, stall.wall),
                cpu: Math.max(run.stall.cpu, stall.cpu),
            }
            run.answers.push(times.answer)
            times.shown.forEach((time, which) => (run.shown[which] ??= []).push(time))
        }
    for (const run of runs) run.stopListening()
    const load = loadAverage()
    // The hash caches are saved once the writes have been quiet a while: a stall of their own.
    const quiet = stallWatch()
    await sleep(hashCacheSavedAfterMs)
    const stallAfter = quiet.stop()
    return runs.map((run) => ({
        reload: median(run.reloads),
        answer: median(run.answers),
        shown: run.shown.map(median),
        stall: run.stall,
        stallAfter,
        load,
    }))
}

/** Every size's subject made (one after another, so that no start shares the machine with another), measured in turn, then closed. */
const runSizes = async (
    counts: number[],
    subject: (count: number) => Promise<Subject>,
): Promise<[number, Run][]> => {
    const subjects: Subject[] = []
    try {
        for (const count of counts) subjects.push(await subject(count))
        const runs = await measureInTurn(subjects)
        return counts.map((count, at) => [count, runs[at]!])
    } finally {
        for (const { close } of subjects) await close()
    }
}

/** Polls until `shows` holds, then answers how long after `since` it did. */
const until = async (since: number, shows: () => Promise<boolean>) => {
    while (!(await shows())) {
        if (performance.now() - since > 30_000) throw new Error('not shown within 30 s')
    }
    return performance.now() - since
}

/**
 * A server of the folder, once it is done with its start: after the watcher's first scan it
 * sweeps every item folder for leftovers of killed writes (a readdir of each of 100,000 replays),
 * which the writes measured would otherwise share the disk and the thread pool with.
 */
const start = async (signer: TestSigner, content: string) => {
    const server = await startTestServer({
        content,
        watch: true,
        signIn: { signatureKey: signer.publicKeyFile },
    })
    await server.leftovers
    return server
}

const commentSubject = async (signer: TestSigner, count: number): Promise<Subject> => {
    const content = await copyContent()
    await generousWriteLimits(content)
    const folder = join(content, 'levels', level, 'comments')
    await mkdir(folder, { recursive: true })
    const epoch = Date.UTC(2025, 0, 1)
    await writeMany(
        Array.from({ length: count }, (_, index) => [
            join(folder, `bench-${index}.md`),
            `---\nauthor: Player ${index}\ntime: ${new Date(epoch + index * 60_000).toISOString()}\n---\nComment ${index} of the benchmark.\n`,
        ]),
    )
    await onDisk(content)
    const server = await start(signer, content)
    const player = await signInPlayer(server, signer, 'bench-id', 'Bench')
    const write = async (index: number) => {
        const text = `Posted ${index}`
        const started = performance.now()
        const answer = await player.submit(`/levels/${level}/community/submit`, {
            type: 'comment',
            content: text,
        })
        const answered = performance.now() - started
        if (answer.status !== 200) throw new Error(`comment answered ${answer.status}`)
        const listed = await until(started, async () => {
            const { body } = await getJson<{ comments: { content: string }[] }>(
                `${server.root}/levels/${level}/community/comments/list`,
            )
            return body.comments[0]?.content === text
        })
        return { answer: answered, shown: [listed] }
    }
    return { server, write, close: () => closeSubject(server, content) }
}

const closeSubject = async (server: TestServer, content: string) => {
    await server.stop()
    await rm(content, { recursive: true, force: true })
}

const gzipJson = (value: unknown) => gzipSync(Buffer.from(JSON.stringify(value)))

/** `count` replays of the level as the app's results make them: a record and two gzip files. */
const writeReplays = async (content: string, count: number) => {
    const epoch = Date.UTC(2025, 0, 1)
    const configuration = gzipJson({ options: [] })
    for (let start = 0; start < count; start += 1000) {
        const names = Array.from(
            { length: Math.min(1000, count - start) },
            (_, index) => `bench-${start + index}`,
        )
        await Promise.all(
            names.map((name) => mkdir(join(content, 'replays', name), { recursive: true })),
        )
        await writeMany(
            names.flatMap((name, index): [string, string | Buffer][] => [
                [
                    join(content, 'replays', name, 'item.yaml'),
                    `title: Run ${name}\nauthor: Player ${(start + index) % 97}\ntime: ${new Date(epoch + (start + index) * 1000).toISOString()}\nlevel: ${level}\n`,
                ],
                [join(content, 'replays', name, 'data'), gzipJson({ run: name })],
                [join(content, 'replays', name, 'configuration'), configuration],
            ]),
        )
    }
}

/** Submits one result and uploads its files; the replay's title, to find it. */
const play = async (player: Player, title: string, dataHash: string) => {
    // Real replay data (the upload reads its result), distinct per play through its title.
    const data = gzipJson({ ...replayDataOf(perfectResult), title })
    const configuration = gzipJson({ options: [], title })
    const submit = await player.submit(
        '/levels/result/submit',
        { type: 'replay' },
        {
            replay: {
                title,
                level: { name: level, data: { hash: dataHash } },
                data: { hash: sha1(data), url: '/local/data' },
                configuration: { hash: sha1(configuration), url: '/local/configuration' },
            },
        },
    )
    if (submit.status !== 200)
        throw new Error(`result answered ${submit.status}: ${JSON.stringify(submit.body)}`)
    const upload = await player.upload('/levels/result/upload', submit.body.key, [
        data,
        configuration,
    ])
    if (upload.status !== 200) throw new Error(`upload answered ${upload.status}`)
}

const replaySubject = async (signer: TestSigner, count: number): Promise<Subject> => {
    const content = await copyContent()
    await generousWriteLimits(content)
    if (count) await writeReplays(content, count)
    await onDisk(content)
    const loading = performance.now()
    const server: TestServer = await start(signer, content)
    log(`  served ${count} replays after ${((performance.now() - loading) / 1000).toFixed(1)} s`)
    const player = await signInPlayer(server, signer, 'bench-id', 'Bench')
    // The submit names the data the play was of, as the app does.
    const dataHash = await levelDataHash(server, level)
    const firstTitle = async (path: string, pick: (body: never) => string | undefined) =>
        pick((await getJson<never>(`${server.root}${path}`)).body)
    const write = async (index: number) => {
        const title = `Bench play ${index}`
        const started = performance.now()
        await play(player, title, dataHash)
        const answered = performance.now() - started
        const listed = await until(
            started,
            async () =>
                (await firstTitle(
                    '/replays/list',
                    (body: { items: { title: string }[] }) => body.items[0]?.title,
                )) === title,
        )
        const inDetails = await until(
            started,
            async () =>
                (await firstTitle(
                    `/levels/${level}`,
                    (body: { sections: { itemType: string; items: { title: string }[] }[] }) =>
                        body.sections.find((section) => section.itemType === 'replay')?.items[0]
                            ?.title,
                )) === title,
        )
        return { answer: answered, shown: [listed, inDetails] }
    }
    return { server, write, close: () => closeSubject(server, content) }
}

type Run = Awaited<ReturnType<typeof measureInTurn>>[number]

const ratioCell = (value: number, base: number) =>
    `${formatNumber(value / base, 2)}× ${value / base <= answerRatioTarget ? 'met' : 'MISSED'}`
const stallCell = (stall: Run['stall']) =>
    `${formatNumber(stall.wall, 1)} · ${formatNumber(stall.cpu, 1)} ${stall.cpu <= stallTargetMs ? 'met' : 'MISSED'}`

/** A table of runs by size, each figure with its ratio to the first (smallest) size's. */
const printRuns = (title: string, size: string, runs: [number, Run][], shown: string[]) => {
    const [, base] = runs[0]!
    const withRatio = (value: number, baseValue: number) => [
        formatNumber(value, 1),
        ratioCell(value, baseValue),
    ]
    console.log(`\n${title}\n`)
    console.log(
        renderTable(
            [
                size,
                'reload',
                'ratio',
                'answer',
                'ratio',
                ...shown.flatMap((name) => [name, 'ratio']),
                'longest stall: clock · CPU',
                'after: clock · CPU',
                'load average',
            ],
            runs.map(([count, run]) => [
                count.toLocaleString('en-US'),
                ...withRatio(run.reload, base.reload),
                ...withRatio(run.answer, base.answer),
                ...run.shown.flatMap((time, which) => withRatio(time, base.shown[which]!)),
                stallCell(run.stall),
                stallCell(run.stallAfter),
                run.load,
            ]),
            [],
        ),
    )
}

/** A scenario's verdict: a write at a size against the same at the smallest, on the targets only. */
type Verdict = { scenario: string; ratios: string[]; stall: string; met: boolean; load: string }

const verdicts = (scenario: (count: number) => string, runs: [number, Run][]): Verdict[] => {
    const [, base] = runs[0]!
    return runs.slice(1).map(([count, run]) => {
        const ratios = [
            run.answer / base.answer,
            ...run.shown.map((time, which) => time / base.shown[which]!),
        ]
        return {
            scenario: scenario(count),
            ratios: ratios.map((ratio) => `${formatNumber(ratio, 2)}×`),
            stall: formatNumber(run.stall.cpu, 1),
            met:
                ratios.every((ratio) => ratio <= answerRatioTarget) &&
                run.stall.cpu <= stallTargetMs,
            load: run.load,
        }
    })
}

/** Every scenario of the issue against its targets, one line each. */
const printVerdicts = (lines: Verdict[]) => {
    console.log(
        `\nTargets: answer and every showing within ${answerRatioTarget}× of the smallest size, longest stall (CPU) ≤ ${stallTargetMs} ms\n`,
    )
    console.log(
        renderTable(
            ['scenario', 'answer · shown', 'stall ms', 'verdict', 'load average'],
            lines.map((line) => [
                line.scenario,
                line.ratios.join(' · '),
                line.stall,
                line.met ? 'met' : 'MISSED',
                line.load,
            ]),
            [0],
        ),
    )
}

const main = async () => {
    const signer = await createTestSigner()
    console.log(
        `Growth: ${writes} writes per size, the sizes taken in turn; medians in ms; targets: within ${answerRatioTarget}× of the smallest size, longest stall ≤ ${stallTargetMs} ms\n`,
    )
    const commentRuns = await runSizes(commentCounts, (count) => {
        log(`comments: ${count} on levels/${level} …`)
        return commentSubject(signer, count)
    })
    printRuns('A comment on a level of N comments', 'comments', commentRuns, ['listed'])
    const replayRuns = await runSizes([0, ...replayCounts], (count) => {
        log(`plays: ${count} replays besides the example's …`)
        return replaySubject(signer, count)
    })
    printRuns(
        "A play of a level into a replays folder of N replays (besides the example's 3)",
        'replays',
        replayRuns,
        ['listed', 'in details'],
    )
    printVerdicts([
        ...verdicts(
            (count) => `a comment into ${count.toLocaleString('en-US')} comments`,
            commentRuns,
        ),
        ...verdicts((count) => `a play into ${count.toLocaleString('en-US')} replays`, replayRuns),
    ])
}

await main()
