/**
 * What the watcher alone keeps: `watchFolder` of a built Shelf run on a generated tree in a
 * process of its own, its first scan timed (wall and CPU), the heap left alive after a full
 * collection compared with the heap before, per folder watched, and the process's peak resident
 * memory (VmHWM). Nothing else runs in that process: no reading, no catalog, no requests.
 *
 *   node --import tsx bench/watch-memory.ts --levels 10000 [--runs 3] [--seed 1]
 *                                           [--server dist/cli/main.js,OTHER/dist/cli/main.js] [--json]
 *
 * Several servers (comma-separated) are run in turn, run by run, so that builds compared meet the
 * same load. The tree is only read.
 */
import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { opendir } from 'node:fs/promises'
import { dirname, join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { parseArgs } from 'node:util'
import { DEFAULT_SEED, parseCount } from './generate-pack-tree.js'
import { formatCount, formatNumber, log, renderTable } from './output.js'
import { DEFAULT_SERVER } from './shelf-process.js'
import { DEFAULT_TREES_DIR, ensureTree } from './trees.js'

interface WatchMemory {
    server: string
    folders: number
    scanSeconds: number
    scanCpuSeconds: number
    peakRssMiB: number
    liveHeapMiB: number
    bytesPerFolder: number
    loadAverage: string
}

/** What the child process runs: the watcher, nothing else. */
const childScript = `
const { watchFolder } = await import(process.env.WATCH_MODULE)
const heap = () => { globalThis.gc(); globalThis.gc(); return process.memoryUsage().heapUsed }
const before = heap()
const started = performance.now()
const cpu = process.cpuUsage()
const watcher = watchFolder(process.env.WATCH_ROOT, async () => {}, { readSince: Date.now() })
await watcher.ready
const spent = process.cpuUsage(cpu)
const scanMs = performance.now() - started
const live = heap() - before
const { readFileSync } = await import('node:fs')
const peakKiB = Number(/VmHWM:\\s*(\\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))[1])
await watcher.close()
process.stdout.write(JSON.stringify({ scanMs, cpuMs: (spent.user + spent.system) / 1000, live, peakKiB }))
`

/** Folders the watcher watches: every folder below the root but dot folders. */
const countFolders = async (root: string): Promise<number> => {
    let count = 0
    for await (const entry of await opendir(root))
        if (entry.isDirectory() && !entry.name.startsWith('.'))
            count += 1 + (await countFolders(join(root, entry.name)))
    return count
}

const runWatcher = (server: string, root: string) =>
    new Promise<{ scanMs: number; cpuMs: number; live: number; peakKiB: number }>(
        (resolvePromise, reject) => {
            const watchModule = pathToFileURL(
                join(dirname(server), '..', 'watch', 'watch-folder.js'),
            )
            const child = spawn(
                process.execPath,
                ['--expose-gc', '--input-type=module', '-e', childScript],
                {
                    env: { ...process.env, WATCH_MODULE: watchModule.href, WATCH_ROOT: root },
                    stdio: ['ignore', 'pipe', 'inherit'],
                },
            )
            let output = ''
            child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
            child.on('error', reject)
            child.on('exit', (code) =>
                code === 0
                    ? resolvePromise(JSON.parse(output))
                    : reject(new Error(`the watcher's process exited with ${code}`)),
            )
        },
    )

async function main(): Promise<void> {
    const { values } = parseArgs({
        args: process.argv.slice(2),
        options: {
            levels: { type: 'string', default: '10000' },
            runs: { type: 'string', default: '3' },
            seed: { type: 'string' },
            server: { type: 'string', default: DEFAULT_SERVER },
            trees: { type: 'string', default: DEFAULT_TREES_DIR },
            json: { type: 'boolean', default: false },
        },
    })
    const levels = parseCount('--levels', values.levels)
    const seed = values.seed === undefined ? DEFAULT_SEED : parseCount('--seed', values.seed)
    const servers = values.server.split(',').map((server) => resolve(server.trim()))
    const root = await ensureTree(resolve(values.trees), levels, seed)
    const folders = await countFolders(root)
    const rows: WatchMemory[] = []
    for (let run = 0; run < parseCount('--runs', values.runs); run++)
        for (const server of servers) {
            log(`run ${run + 1}: watching ${formatCount(folders)} folders with ${server} …`)
            const loadAverage = readFileSync('/proc/loadavg', 'utf8')
            const measured = await runWatcher(server, root)
            rows.push({
                server,
                folders,
                scanSeconds: measured.scanMs / 1000,
                scanCpuSeconds: measured.cpuMs / 1000,
                peakRssMiB: measured.peakKiB / 1024,
                liveHeapMiB: measured.live / 1024 / 1024,
                bytesPerFolder: measured.live / folders,
                loadAverage: loadAverage.split(' ').slice(0, 3).join(' '),
            })
        }
    if (values.json) return console.log(JSON.stringify(rows, null, 4))
    console.log(
        renderTable(
            [
                'server',
                'folders',
                'scan s',
                'scan CPU s',
                'peak RSS MiB',
                'live heap MiB',
                'B/folder',
                'load',
            ],
            rows.map((row) => [
                row.server,
                formatCount(row.folders),
                formatNumber(row.scanSeconds, 2),
                formatNumber(row.scanCpuSeconds, 2),
                formatNumber(row.peakRssMiB, 0),
                formatNumber(row.liveHeapMiB, 1),
                formatCount(row.bytesPerFolder),
                row.loadAverage,
            ]),
            [0, 7],
        ),
    )
}

main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error)
    process.exitCode = 1
})
