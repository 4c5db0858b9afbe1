/**
 * What the watcher's first scan costs the requests served meanwhile, and what watching costs in
 * memory: Shelf is started watching (warm cache), a list page is asked at 10 connections from the
 * listening line on, through the scan and for as long again after it (at least `--after`
 * seconds), and the latencies of the two phases are compared.
 *
 *   node --import tsx bench/watch-scan.ts --levels 10000 [--connections 10] [--after 5]
 *                                         [--profile DIR] [--no-control] [--seed 1]
 *                                         [--server dist/cli/main.js] [--json]
 *
 * The answer is the same page every time (as in `npm run bench`'s list scenario), so from the
 * second request on it costs Shelf a look-up and a write: what the scan adds is the time a
 * request waits behind the scan's work. Peak memory is the kernel's high-water mark (VmHWM) of
 * the whole run: reading, scanning and the load.
 *
 * A request is timed from when it was sent, and counts in the phase it was answered in; the
 * first requests are sent at the listening line, as a user's would be. At 10 connections a stall
 * of the event loop holds ten requests at once, so the p99 of a scan of 1,500 requests is about
 * its second-longest stall: the server is started with bench/loop-stall-probe.js, and the longest
 * stalls of the scan are printed beside the table, on the clock and in the main thread's CPU
 * time (which the load of other processes inflates less). `--profile DIR` runs the server under
 * `node --cpu-prof` and names the functions on the stack during each of them.
 *
 * Then the control: the same start without watching, loaded the same way, its answers split at
 * the scan's length instead. The first second after a start is slower with or without a scan
 * (V8 optimizes the request path under the load, and the client warms up too): what the
 * control's ratio shows is that part, and the scan's own cost is the difference. `--no-control`
 * leaves it out.
 */
import autocannon from 'autocannon'
import { existsSync } from 'node:fs'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { loadavg, tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { parseArgs } from 'node:util'
import { parseCount } from './generate-pack-tree.js'
import { formatNumber, log, renderTable } from './output.js'
import {
    assertServerBuilt,
    measureStart,
    readMemory,
    readServerBenchOptions,
    serverBenchOptions,
    startServer,
    stopServer,
    toMiB,
} from './shelf-process.js'
import { framesDuring, mainThreadProfile } from './stall-frames.js'
import { ensureTree } from './trees.js'

const LIST_PATH = '/service/levels/list?localization=en'
const probe = join(dirname(fileURLToPath(import.meta.url)), 'loop-stall-probe.js')
/** How many of the scan's longest stalls are shown. */
const shownStalls = 5

/** A stall as bench/loop-stall-probe.js notes it: when it began (ms since the epoch, µs on the profiles' clock), clock and CPU ms. */
interface Stall {
    at: number
    mono: number
    ms: number
    cpuMs: number
}

interface Phase {
    requests: number
    p50Ms: number
    p99Ms: number
    maxMs: number
}

interface ScanMeasurement {
    levels: number
    startupSeconds: number
    /** From the listening line to the watching line. */
    scanSeconds: number
    duringScan: Phase
    afterScan: Phase
    peakRssMiB: number | null
    rssMiB: number | null
    errors: number
    /** The longest stalls of the loop during the scan, by CPU time, with when they began after the listening line (s). */
    scanStalls: (Stall & { afterS: number; frames?: string })[]
    loadAverage: string
    /** The same start without watching, its answers split at the scan's length. */
    control?: { duringSpan: Phase; afterSpan: Phase }
}

const phaseOf = (latencies: number[]): Phase => {
    const sorted = Float64Array.from(latencies).sort()
    const at = (fraction: number) =>
        sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)] ?? Number.NaN
    return {
        requests: sorted.length,
        p50Ms: at(0.5),
        p99Ms: at(0.99),
        maxMs: sorted.at(-1) ?? Number.NaN,
    }
}

const readStalls = async (file: string): Promise<Stall[]> =>
    (await readFile(file, 'utf8').catch(() => ''))
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Stall)

async function measureScan(
    options: ReturnType<typeof readServerBenchOptions> & {
        connections: number
        afterS: number
        profile?: string
    },
    contentDir: string,
    levels: number,
    /** A control: the server does not watch, and the first phase lasts this long. */
    unwatchedSpanS?: number,
): Promise<ScanMeasurement> {
    // A warm start: what is measured is the scan, not the hashing of a first start.
    if (!existsSync(join(contentDir, '.shelf', 'hashes.json'))) {
        log('first start, to fill the cache …')
        await measureStart({ ...options, serveArgs: ['--no-watch'] }, contentDir, levels, 'cold')
    }
    const work = await mkdtemp(join(tmpdir(), 'shelf-scan-'))
    const stallLog = join(work, 'stalls.jsonl')
    // Read by the probe in the server, which inherits this process's environment.
    process.env.SHELF_STALL_LOG = stallLog
    const server = await startServer(
        {
            ...options,
            ...(unwatchedSpanS === undefined
                ? {}
                : { serveArgs: [...options.serveArgs, '--no-watch'] }),
            untilListening: true,
            nodeArgs: [
                '--import',
                pathToFileURL(probe).href,
                ...(options.profile ? ['--cpu-prof', '--cpu-prof-dir', options.profile] : []),
            ],
        },
        contentDir,
    )
    const listening = performance.now()
    const listeningAt = Date.now()
    let scanning = true
    const during: number[] = []
    const after: number[] = []
    let errors = 0
    // The callback is autocannon's result, which is not used: the phases are told apart by the time of each response.
    const load = autocannon(
        {
            url: `${server.url}${LIST_PATH}`,
            connections: options.connections,
            duration: options.timeoutMs / 1000,
        },
        () => {},
    )
    // autocannon's connections go on trying after its stop, against a server stopped by then:
    // what fails after the measuring is over is not the server's.
    let measuring = true
    load.on('response', (_client, status, _bytes, ms) => {
        if (!measuring) return
        if (status !== 200) errors++
        ;(scanning ? during : after).push(ms)
    })
    load.on('reqError', () => {
        if (measuring) errors++
    })
    try {
        await (unwatchedSpanS === undefined
            ? server.watched
            : new Promise((resolve) => setTimeout(resolve, unwatchedSpanS * 1000)))
        const scanSeconds = (performance.now() - listening) / 1000
        const watchedAt = Date.now()
        scanning = false
        await new Promise((resolve) =>
            setTimeout(resolve, Math.max(options.afterS, scanSeconds) * 1000),
        )
        measuring = false
        load.stop()
        const memory = await readMemory(server.child.pid)
        const loadAverage = loadavg()
            .map((value) => value.toFixed(1))
            .join(' ')
        await stopServer(server.child)
        const scanStalls = (await readStalls(stallLog))
            .filter((stall) => stall.at >= listeningAt && stall.at < watchedAt)
            .sort((a, b) => b.cpuMs - a.cpuMs)
            .slice(0, shownStalls)
        const profile = options.profile && (await mainThreadProfile(options.profile))
        return {
            levels,
            startupSeconds: server.startupSeconds,
            scanSeconds,
            duringScan: phaseOf(during),
            afterScan: phaseOf(after),
            peakRssMiB: toMiB(memory?.peakBytes),
            rssMiB: toMiB(memory?.rssBytes),
            errors,
            scanStalls: scanStalls.map((stall) => ({
                ...stall,
                afterS: (stall.at - listeningAt) / 1000,
                frames:
                    profile &&
                    framesDuring(
                        profile,
                        stall.mono,
                        stall.mono + (stall.ms + 1) * 1000,
                        8,
                    ).frames.join(' · '),
            })),
            loadAverage,
        }
    } finally {
        load.stop()
        await stopServer(server.child)
        await rm(work, { recursive: true, force: true })
    }
}

const render = (rows: ScanMeasurement[]) =>
    renderTable(
        [
            'levels',
            'scan s',
            'during: requests',
            'p50 ms',
            'p99 ms',
            'max ms',
            'after: requests',
            'p50 ms',
            'p99 ms',
            'p99 during/after',
            'unwatched: p99 first · after',
            'its ratio',
            'peak RSS MiB',
            'errors',
            'load',
        ],
        rows.map((row) => [
            String(row.levels),
            formatNumber(row.scanSeconds, 2),
            String(row.duringScan.requests),
            formatNumber(row.duringScan.p50Ms, 2),
            formatNumber(row.duringScan.p99Ms, 2),
            formatNumber(row.duringScan.maxMs, 1),
            String(row.afterScan.requests),
            formatNumber(row.afterScan.p50Ms, 2),
            formatNumber(row.afterScan.p99Ms, 2),
            `${formatNumber(row.duringScan.p99Ms / row.afterScan.p99Ms, 2)}×`,
            row.control
                ? `${formatNumber(row.control.duringSpan.p99Ms, 2)} · ${formatNumber(row.control.afterSpan.p99Ms, 2)}`
                : '-',
            row.control
                ? `${formatNumber(row.control.duringSpan.p99Ms / row.control.afterSpan.p99Ms, 2)}×`
                : '-',
            formatNumber(row.peakRssMiB, 0),
            String(row.errors),
            row.loadAverage,
        ]),
        [],
    )

const renderStalls = (rows: ScanMeasurement[]) =>
    rows
        .map(
            (row) =>
                `\n${row.levels} levels: the longest stalls of the loop during the scan, s after the listening line: clock · main thread's CPU ms\n` +
                row.scanStalls
                    .map(
                        (stall) =>
                            `  ${formatNumber(stall.afterS, 2)} s: ${formatNumber(stall.ms, 1)} · ${formatNumber(stall.cpuMs, 1)}` +
                            (stall.frames ? `\n    ${stall.frames}` : ''),
                    )
                    .join('\n'),
        )
        .join('\n')

async function main(): Promise<void> {
    const { values } = parseArgs({
        args: process.argv.slice(2),
        options: {
            levels: { type: 'string', default: '10000' },
            connections: { type: 'string', default: '10' },
            after: { type: 'string', default: '5' },
            profile: { type: 'string' },
            'no-control': { type: 'boolean', default: false },
            ...serverBenchOptions,
        },
    })
    if (values.help) {
        console.log(
            'usage: node --import tsx bench/watch-scan.ts --levels 10000 [--connections 10] [--after SECONDS] [--profile DIR] [--no-control] [--seed S] [--server dist/cli/main.js] [--json]',
        )
        return
    }
    const options = {
        ...readServerBenchOptions(values),
        connections: parseCount('--connections', values.connections),
        afterS: parseCount('--after', values.after),
        profile: values.profile && resolve(values.profile),
    }
    assertServerBuilt(options.server)
    const rows: ScanMeasurement[] = []
    for (const part of values.levels.split(',')) {
        const levels = parseCount('--levels', part.trim())
        const contentDir = await ensureTree(options.treesDir, levels, options.seed)
        log(`watching ${levels} levels under load …`)
        const watched = await measureScan(options, contentDir, levels)
        if (!values['no-control']) {
            log(`the same start of ${levels} levels without watching …`)
            const unwatched = await measureScan(
                { ...options, profile: undefined },
                contentDir,
                levels,
                watched.scanSeconds,
            )
            watched.control = {
                duringSpan: unwatched.duringScan,
                afterSpan: unwatched.afterScan,
            }
        }
        rows.push(watched)
    }
    console.log(options.json ? JSON.stringify(rows, null, 4) : render(rows) + renderStalls(rows))
}

main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error)
    process.exitCode = 1
})
