/**
 * What the watcher's first scan costs the requests served meanwhile, and what watching costs in
 * memory: Shelf is started watching (warm cache), a list page is asked at 10 connections from the
 * listening line on, through the scan and for as long again after it (at least `--after`
 * seconds), and the latencies of the two phases are compared.
 *
 *   node --import tsx bench/watch-scan.ts --levels 10000 [--connections 10] [--after 5]
 *                                         [--seed 1] [--server dist/cli/main.js] [--json]
 *
 * The answer is the same page every time (as in `npm run bench`'s list scenario), so from the
 * second request on it costs Shelf a look-up and a write: what the scan adds is the time a
 * request waits behind the scan's work. Peak memory is the kernel's high-water mark (VmHWM) of
 * the whole run: reading, scanning and the load.
 */
import autocannon from 'autocannon'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
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
import { ensureTree } from './trees.js'

const LIST_PATH = '/service/levels/list?localization=en'

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

async function measureScan(
    options: ReturnType<typeof readServerBenchOptions> & { connections: number; afterS: number },
    contentDir: string,
    levels: number,
): Promise<ScanMeasurement> {
    // A warm start: what is measured is the scan, not the hashing of a first start.
    if (!existsSync(join(contentDir, '.shelf', 'hashes.json'))) {
        log('first start, to fill the cache …')
        await measureStart({ ...options, serveArgs: ['--no-watch'] }, contentDir, levels, 'cold')
    }
    const server = await startServer({ ...options, untilListening: true }, contentDir)
    const listening = performance.now()
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
    load.on('response', (_client, status, _bytes, ms) => {
        if (status !== 200) errors++
        ;(scanning ? during : after).push(ms)
    })
    load.on('reqError', () => errors++)
    try {
        await server.watched
        const scanSeconds = (performance.now() - listening) / 1000
        scanning = false
        await new Promise((resolve) =>
            setTimeout(resolve, Math.max(options.afterS, scanSeconds) * 1000),
        )
        load.stop()
        const memory = await readMemory(server.child.pid)
        return {
            levels,
            startupSeconds: server.startupSeconds,
            scanSeconds,
            duringScan: phaseOf(during),
            afterScan: phaseOf(after),
            peakRssMiB: toMiB(memory?.peakBytes),
            rssMiB: toMiB(memory?.rssBytes),
            errors,
        }
    } finally {
        load.stop()
        await stopServer(server.child)
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
            'peak RSS MiB',
            'errors',
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
            formatNumber(row.peakRssMiB, 0),
            String(row.errors),
        ]),
        [],
    )

async function main(): Promise<void> {
    const { values } = parseArgs({
        args: process.argv.slice(2),
        options: {
            levels: { type: 'string', default: '10000' },
            connections: { type: 'string', default: '10' },
            after: { type: 'string', default: '5' },
            ...serverBenchOptions,
        },
    })
    if (values.help) {
        console.log(
            'usage: node --import tsx bench/watch-scan.ts --levels 10000 [--connections 10] [--after SECONDS] [--seed S] [--server dist/cli/main.js] [--json]',
        )
        return
    }
    const options = {
        ...readServerBenchOptions(values),
        connections: parseCount('--connections', values.connections),
        afterS: parseCount('--after', values.after),
    }
    assertServerBuilt(options.server)
    const rows: ScanMeasurement[] = []
    for (const part of values.levels.split(',')) {
        const levels = parseCount('--levels', part.trim())
        const contentDir = await ensureTree(options.treesDir, levels, options.seed)
        log(`watching ${levels} levels under load …`)
        rows.push(await measureScan(options, contentDir, levels))
    }
    console.log(options.json ? JSON.stringify(rows, null, 4) : render(rows))
}

main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error)
    process.exitCode = 1
})
