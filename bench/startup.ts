/**
 * Measures how long Shelf takes to start on pack trees of several sizes, and how much memory it
 * needs to get there.
 *
 *   node --import tsx bench/startup.ts --levels 1000,10000 [--seed 1] [--cache cold,warm]
 *                                      [--server dist/cli/main.js] [--timeout 600] [--json]
 *
 * Trees are generated once into bench/out/ (gitignored) and reused while their size, seed and
 * generator version match. Each size is started with Shelf's cache removed (`cold`), then again
 * with the cache the first start left (`warm`).
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync } from 'node:fs'
import { readFile, writeFile } from 'node:fs/promises'
import { get } from 'node:http'
import { dirname, join, resolve } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import {
    DEFAULT_SEED,
    TREE_FORMAT_VERSION,
    generatePackTree,
    parseCount,
    removeTree,
} from './generate-pack-tree.js'

const BENCH_DIR = dirname(fileURLToPath(import.meta.url))
const DEFAULT_TREES_DIR = join(BENCH_DIR, 'out')
const DEFAULT_SERVER = resolve(BENCH_DIR, '..', 'dist', 'cli', 'main.js')
// The Sonolus protocol pages item lists by 20.
const LEVELS_PER_PAGE = 20
const LISTENING_LINE = /listening on (https?:\/\/\S+)/
const STOP_GRACE_MS = 5_000
const MIB = 1024 * 1024

type CacheState = 'cold' | 'warm'

interface Options {
    sizes: number[]
    seed: number
    caches: CacheState[]
    server: string
    treesDir: string
    timeoutMs: number
    json: boolean
}

interface Memory {
    peakBytes: number
    rssBytes: number
}

interface Measurement {
    levels: number
    cache: CacheState
    startupSeconds: number
    peakRssMiB: number | null
    rssAfterListMiB: number | null
    firstListMs: number
    pageCount: number | null
    error?: string
}

// ---------------------------------------------------------------------------------------------
// Trees
// ---------------------------------------------------------------------------------------------

interface TreeManifest {
    formatVersion: number
    levels: number
    seed: number
    files: number
    bytes: number
    generatedSeconds: number
}

/**
 * The manifest sits next to the tree, not in it, so the tree stays an unmodified pack tree; it
 * is written last, so a tree whose generation was interrupted is never reused.
 */
async function readManifest(path: string): Promise<TreeManifest | null> {
    try {
        return JSON.parse(await readFile(path, 'utf8')) as TreeManifest
    } catch {
        return null
    }
}

async function ensureTree(treesDir: string, levels: number, seed: number): Promise<string> {
    const dir = join(treesDir, `tree-${levels}-seed-${seed}`)
    const manifestPath = `${dir}.json`
    const manifest = await readManifest(manifestPath)
    if (
        manifest?.formatVersion === TREE_FORMAT_VERSION &&
        manifest.levels === levels &&
        manifest.seed === seed &&
        existsSync(dir)
    ) {
        log(`reusing ${dir} (${manifest.files} files)`)
        return dir
    }

    await removeTree(manifestPath)
    await removeTree(dir)
    log(`generating ${dir} …`)
    const tree = await generatePackTree(dir, { levels, seed })
    const written: TreeManifest = {
        formatVersion: TREE_FORMAT_VERSION,
        levels,
        seed,
        files: tree.files,
        bytes: tree.bytes,
        generatedSeconds: tree.seconds,
    }
    await writeFile(manifestPath, `${JSON.stringify(written, null, 4)}\n`)
    log(`generated ${tree.files} files in ${tree.seconds.toFixed(1)} s`)
    return dir
}

// ---------------------------------------------------------------------------------------------
// Server process
// ---------------------------------------------------------------------------------------------

interface RunningServer {
    child: ChildProcess
    url: string
    startupSeconds: number
    output: () => string
}

/** Keeps the end of a stream, enough to explain a failed start without holding all logs. */
function keepTail(limit: number) {
    let text = ''
    return {
        push(chunk: string) {
            text = (text + chunk).slice(-limit)
        },
        get: () => text,
    }
}

function startServer(server: string, contentDir: string, timeoutMs: number): Promise<RunningServer> {
    const started = performance.now()
    // The server is node itself, not a shell, so the pid measured is the one doing the work.
    const child = spawn(
        process.execPath,
        [server, 'serve', '--content', contentDir, '--port', '0', '--host', '127.0.0.1'],
        { stdio: ['ignore', 'pipe', 'pipe'] },
    )
    const tail = keepTail(4000)
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => tail.push(chunk))
    // Stdout is read to the end, whatever it says, so a chatty server never blocks on a full pipe.
    const lines = createInterface({ input: child.stdout! })

    return new Promise((resolvePromise, reject) => {
        const fail = (message: string) => {
            clearTimeout(timer)
            child.kill('SIGKILL')
            const output = tail.get().trimEnd()
            reject(new Error(output === '' ? message : `${message}\n${output}`))
        }
        const timer = setTimeout(
            () => fail(`no listening line within ${timeoutMs / 1000} s`),
            timeoutMs,
        )
        child.once('error', (error) => fail(`could not start: ${error.message}`))
        child.once('exit', (code, signal) => fail(`exited before listening (${signal ?? code})`))
        lines.on('line', (line) => {
            tail.push(`${line}\n`)
            const match = LISTENING_LINE.exec(line)
            if (!match?.[1]) return
            const startupSeconds = (performance.now() - started) / 1000
            clearTimeout(timer)
            child.removeAllListeners('exit')
            resolvePromise({
                child,
                url: match[1].replace(/\/+$/, ''),
                startupSeconds,
                output: tail.get,
            })
        })
    })
}

async function stopServer(child: ChildProcess): Promise<void> {
    if (child.exitCode !== null || child.signalCode !== null) return
    const exited = new Promise<void>((resolvePromise) => child.once('exit', () => resolvePromise()))
    child.kill('SIGTERM')
    const timer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS)
    await exited
    clearTimeout(timer)
}

/** VmHWM is the kernel's own high-water mark of RSS, so no start-up peak is missed between polls. */
async function readMemory(pid: number | undefined): Promise<Memory | null> {
    if (pid === undefined) return null
    let status: string
    try {
        status = await readFile(`/proc/${pid}/status`, 'utf8')
    } catch {
        return null // not Linux, or already gone
    }
    const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1])
    const peakBytes = kib('VmHWM') * 1024
    const rssBytes = kib('VmRSS') * 1024
    return Number.isFinite(peakBytes) && Number.isFinite(rssBytes) ? { peakBytes, rssBytes } : null
}

// ---------------------------------------------------------------------------------------------
// Requests
// ---------------------------------------------------------------------------------------------

/** node:http without an agent: the connection closes with the response, nothing lingers. */
function getJson(url: string): Promise<unknown> {
    return new Promise((resolvePromise, reject) => {
        const request = get(url, { agent: false }, (response) => {
            const chunks: Buffer[] = []
            response.on('data', (chunk: Buffer) => chunks.push(chunk))
            response.on('error', reject)
            response.on('end', () => {
                const body = Buffer.concat(chunks).toString('utf8')
                if (response.statusCode !== 200) {
                    reject(new Error(`GET ${url}: HTTP ${response.statusCode}: ${body.slice(0, 300)}`))
                    return
                }
                try {
                    resolvePromise(JSON.parse(body))
                } catch {
                    reject(new Error(`GET ${url}: not JSON: ${body.slice(0, 300)}`))
                }
            })
        })
        request.on('error', reject)
    })
}

function pageCountOf(list: unknown): number | null {
    if (typeof list !== 'object' || list === null || !('pageCount' in list)) return null
    return typeof list.pageCount === 'number' ? list.pageCount : null
}

// ---------------------------------------------------------------------------------------------
// Measuring
// ---------------------------------------------------------------------------------------------

function toMiB(bytes: number | undefined): number | null {
    return bytes === undefined ? null : bytes / MIB
}

async function measureStart(
    options: Options,
    contentDir: string,
    levels: number,
    cache: CacheState,
): Promise<Measurement> {
    // Shelf keeps its cache in the content folder; removing it makes this a first start.
    if (cache === 'cold') await removeTree(join(contentDir, '.shelf'))
    const server = await startServer(options.server, contentDir, options.timeoutMs)
    try {
        const listStarted = performance.now()
        const list = await getJson(`${server.url}/service/levels/list?localization=en`)
        const firstListMs = performance.now() - listStarted
        const memory = await readMemory(server.child.pid)

        const pageCount = pageCountOf(list)
        const expected = Math.ceil(levels / LEVELS_PER_PAGE)
        const measurement: Measurement = {
            levels,
            cache,
            startupSeconds: server.startupSeconds,
            peakRssMiB: toMiB(memory?.peakBytes),
            rssAfterListMiB: toMiB(memory?.rssBytes),
            firstListMs,
            pageCount,
        }
        if (pageCount !== expected) {
            measurement.error = `pageCount ${pageCount} in /service/levels/list, expected ${expected}`
        }
        return measurement
    } finally {
        await stopServer(server.child)
    }
}

function failedMeasurement(levels: number, cache: CacheState, error: unknown): Measurement {
    return {
        levels,
        cache,
        startupSeconds: Number.NaN,
        peakRssMiB: null,
        rssAfterListMiB: null,
        firstListMs: Number.NaN,
        pageCount: null,
        error: error instanceof Error ? error.message : String(error),
    }
}

// ---------------------------------------------------------------------------------------------
// Output
// ---------------------------------------------------------------------------------------------

// Progress goes to stderr so that stdout holds only the table (or JSON).
function log(message: string): void {
    process.stderr.write(`${message}\n`)
}

function formatNumber(value: number | null, digits: number): string {
    return value === null || Number.isNaN(value) ? 'n/a' : value.toFixed(digits)
}

function renderTable(rows: Measurement[]): string {
    const header = [
        'levels',
        'cache',
        'start-up s',
        'peak RSS MiB',
        'RSS after list MiB',
        'first list ms',
        'check',
    ]
    const body = rows.map((row) => [
        String(row.levels),
        row.cache,
        formatNumber(row.startupSeconds, 2),
        formatNumber(row.peakRssMiB, 1),
        formatNumber(row.rssAfterListMiB, 1),
        formatNumber(row.firstListMs, 0),
        row.error === undefined ? 'ok' : 'FAIL',
    ])
    const widths = header.map((title, column) =>
        Math.max(title.length, ...body.map((cells) => (cells[column] ?? '').length)),
    )
    // Text columns left-aligned, numbers right-aligned, like any table one reads numbers from.
    const leftAligned = new Set([1, 6])
    const renderRow = (cells: string[]) =>
        cells
            .map((cell, column) =>
                leftAligned.has(column)
                    ? cell.padEnd(widths[column] ?? 0)
                    : cell.padStart(widths[column] ?? 0),
            )
            .join('  ')
            .trimEnd()
    const rule = widths.map((width) => '-'.repeat(width)).join('  ')
    const failures = rows
        .filter((row) => row.error !== undefined)
        .map((row) => `\n${row.levels} levels, ${row.cache}: ${row.error}`)
    return [renderRow(header), rule, ...body.map(renderRow)].join('\n') + failures.join('')
}

// ---------------------------------------------------------------------------------------------
// CLI
// ---------------------------------------------------------------------------------------------

const USAGE =
    'usage: node --import tsx bench/startup.ts --levels 1000,10000 [--seed S] [--cache cold,warm] ' +
    '[--server dist/cli/main.js] [--trees bench/out] [--timeout SECONDS] [--json]'

function parseCaches(text: string): CacheState[] {
    const caches = text.split(',').map((part) => part.trim())
    for (const cache of caches) {
        if (cache !== 'cold' && cache !== 'warm') throw new Error(`--cache: unknown ${cache}`)
    }
    return caches as CacheState[]
}

function parseOptions(argv: string[]): Options {
    const { values } = parseArgs({
        args: argv,
        options: {
            levels: { type: 'string', default: '1000,10000' },
            seed: { type: 'string' },
            cache: { type: 'string', default: 'cold,warm' },
            server: { type: 'string', default: DEFAULT_SERVER },
            trees: { type: 'string', default: DEFAULT_TREES_DIR },
            timeout: { type: 'string', default: '600' },
            json: { type: 'boolean', default: false },
            help: { type: 'boolean', short: 'h', default: false },
        },
    })
    if (values.help) {
        console.log(USAGE)
        process.exit(0)
    }
    return {
        sizes: values.levels.split(',').map((part) => parseCount('--levels', part.trim())),
        seed: values.seed === undefined ? DEFAULT_SEED : parseCount('--seed', values.seed),
        caches: parseCaches(values.cache),
        server: resolve(values.server),
        treesDir: resolve(values.trees),
        timeoutMs: parseCount('--timeout', values.timeout) * 1000,
        json: values.json,
    }
}

async function main(): Promise<void> {
    const options = parseOptions(process.argv.slice(2))
    if (!existsSync(options.server)) {
        throw new Error(`${options.server} does not exist: run \`npm run build\` or pass --server`)
    }
    const rows: Measurement[] = []
    for (const levels of options.sizes) {
        const contentDir = await ensureTree(options.treesDir, levels, options.seed)
        for (const cache of options.caches) {
            log(`starting Shelf on ${levels} levels (${cache} cache) …`)
            const row = await measureStart(options, contentDir, levels, cache).catch(
                (error: unknown) => failedMeasurement(levels, cache, error),
            )
            rows.push(row)
        }
    }
    console.log(options.json ? JSON.stringify(rows, null, 4) : renderTable(rows))
    if (rows.some((row) => row.error !== undefined)) process.exitCode = 1
}

main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error)
    process.exitCode = 1
})
