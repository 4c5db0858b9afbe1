/**
 * What watching keeps. By default the watcher alone: `watchFolder` of a built Shelf run on a
 * generated tree in a process of its own, its first scan timed (wall and CPU), the heap left
 * alive after a full collection compared with the heap before, per folder watched, and the
 * process's peak resident memory (VmHWM). Nothing else runs in that process: no reading, no
 * catalog, no requests. With `--serve`, the whole server instead: `shelf serve` on the tree's
 * real path, and once every folder is watched its peak and current resident memory and the heap
 * alive after a full collection (asked for by a signal; `--shelf-args "--no-watch"` for the
 * figures without watching, which are taken right after the listening line).
 *
 *   node --import tsx bench/watch-memory.ts --levels 10000 [--runs 3] [--seed 1]
 *                                           [--server dist/cli/main.js,OTHER/dist/cli/main.js] [--json]
 *   node --import tsx bench/watch-memory.ts --serve --levels 100000 [--shelf-args "--cache DIR"] …
 *
 * The watcher alone is taken from a build's `dist/watch/watch-folder.js`, or, when the build is
 * bundled, from the project's `src/` (through tsx). Several servers (comma-separated) are run in turn, run by run, so that builds compared meet the
 * same load. The tree is only read (give `--cache DIR` to keep a shared tree's `.shelf` unwritten).
 */
import { spawn } from 'node:child_process'
import { existsSync, readFileSync, realpathSync } from 'node:fs'
import { opendir } from 'node:fs/promises'
import { dirname, join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { parseArgs } from 'node:util'
import { DEFAULT_SEED, parseCount } from './generate-pack-tree.js'
import { formatCount, formatNumber, log, renderTable } from './output.js'
import { DEFAULT_SERVER, readMemory, startServer, stopServer } from './shelf-process.js'
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
            // A build of one module a file has the watcher's own; a bundled one, only its sources (run by tsx).
            const built = join(dirname(server), '..', 'watch', 'watch-folder.js')
            const project = join(dirname(server), '..', '..')
            const watchModule = existsSync(built)
                ? built
                : join(project, 'src', 'watch', 'watch-folder.ts')
            const child = spawn(
                process.execPath,
                [
                    '--expose-gc',
                    ...(existsSync(built) ? [] : ['--import', 'tsx']),
                    '--input-type=module',
                    '-e',
                    childScript,
                ],
                {
                    cwd: project,
                    env: {
                        ...process.env,
                        WATCH_MODULE: pathToFileURL(watchModule).href,
                        WATCH_ROOT: root,
                    },
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

interface ServerMemory {
    server: string
    shelfArgs: string
    startupSeconds: number
    watchingSeconds: number | null
    peakRssMiB: number | null
    rssMiB: number | null
    liveHeapMiB: number
    loadAverage: string
}

/** Loaded before Shelf: a full collection and the heap alive after it, on SIGUSR2. */
const heapOnSignal =
    'data:text/javascript,process.on("SIGUSR2",()=>{gc();gc();console.log("live heap "+process.memoryUsage().heapUsed)})'
const LIVE_HEAP_LINE = /live heap (\d+)/

const measureServer = async (
    server: string,
    content: string,
    serveArgs: string[],
    timeoutMs: number,
): Promise<Omit<ServerMemory, 'loadAverage'>> => {
    const running = await startServer(
        { server, timeoutMs, serveArgs, nodeArgs: ['--expose-gc', '--import', heapOnSignal] },
        content,
    )
    try {
        await running.watched
        const memory = await readMemory(running.child.pid)
        running.child.kill('SIGUSR2')
        const started = performance.now()
        let live: RegExpExecArray | null = null
        while (
            !(live = LIVE_HEAP_LINE.exec(running.output())) &&
            performance.now() - started < 60_000
        )
            await new Promise((resolveWait) => setTimeout(resolveWait, 100))
        if (!live) throw new Error('no live heap line within 60 s')
        return {
            server,
            shelfArgs: serveArgs.join(' '),
            startupSeconds: running.startupSeconds,
            watchingSeconds: running.watchingSeconds,
            peakRssMiB: memory && memory.peakBytes / 1024 / 1024,
            rssMiB: memory && memory.rssBytes / 1024 / 1024,
            liveHeapMiB: Number(live[1]) / 1024 / 1024,
        }
    } finally {
        await stopServer(running.child)
    }
}

const loadAverage = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')

async function main(): Promise<void> {
    const { values } = parseArgs({
        args: process.argv.slice(2),
        options: {
            levels: { type: 'string', default: '10000' },
            serve: { type: 'boolean', default: false },
            'shelf-args': { type: 'string', default: '' },
            timeout: { type: 'string', default: '900' },
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
    const runs = parseCount('--runs', values.runs)
    if (values.serve) {
        const serveArgs = values['shelf-args'].split(/\s+/).filter(Boolean)
        // The hash cache names files by their real path.
        const content = realpathSync(root)
        const measured: ServerMemory[] = []
        for (let run = 0; run < runs; run++)
            for (const server of servers) {
                log(`run ${run + 1}: serving ${formatCount(levels)} levels with ${server} …`)
                const load = loadAverage()
                const timeoutMs = parseCount('--timeout', values.timeout) * 1000
                measured.push({
                    ...(await measureServer(server, content, serveArgs, timeoutMs)),
                    loadAverage: load,
                })
            }
        if (values.json) return console.log(JSON.stringify(measured, null, 4))
        return console.log(
            renderTable(
                [
                    'server',
                    'start s',
                    'watching s',
                    'peak RSS MiB',
                    'RSS MiB',
                    'live heap MiB',
                    'load',
                ],
                measured.map((row) => [
                    row.server,
                    formatNumber(row.startupSeconds, 1),
                    formatNumber(row.watchingSeconds, 1),
                    formatNumber(row.peakRssMiB, 0),
                    formatNumber(row.rssMiB, 0),
                    formatNumber(row.liveHeapMiB, 1),
                    row.loadAverage,
                ]),
                [0, 6],
            ),
        )
    }
    const folders = await countFolders(root)
    const rows: WatchMemory[] = []
    for (let run = 0; run < runs; run++)
        for (const server of servers) {
            log(`run ${run + 1}: watching ${formatCount(folders)} folders with ${server} …`)
            const load = loadAverage()
            const measured = await runWatcher(server, root)
            rows.push({
                server,
                folders,
                scanSeconds: measured.scanMs / 1000,
                scanCpuSeconds: measured.cpuMs / 1000,
                peakRssMiB: measured.peakKiB / 1024,
                liveHeapMiB: measured.live / 1024 / 1024,
                bytesPerFolder: measured.live / folders,
                loadAverage: load,
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
