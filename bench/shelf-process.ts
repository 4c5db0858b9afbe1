/**
 * Shelf as the benchmarks see it: a child process started on a content folder, timed until it
 * prints where it listens, asked over plain node:http, and measured through /proc.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync } from 'node:fs'
import { readdir, readFile } from 'node:fs/promises'
import { get, type IncomingHttpHeaders } from 'node:http'
import { dirname, join, resolve } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { DEFAULT_SEED, parseCount, removeTree } from './generate-pack-tree.js'
import { formatNumber, renderTable } from './output.js'
import { DEFAULT_TREES_DIR } from './trees.js'

/** The settings `serverBenchOptions` stand for, once parsed. */
export interface ServerBenchSettings {
    seed: number
    server: string
    /** More flags for `shelf serve` (`--no-watch`, say). */
    serveArgs: string[]
    treesDir: string
    timeoutMs: number
    json: boolean
}

export function readServerBenchOptions(values: {
    seed?: string
    server: string
    'shelf-args': string
    trees: string
    timeout: string
    json: boolean
}): ServerBenchSettings {
    return {
        seed: values.seed === undefined ? DEFAULT_SEED : parseCount('--seed', values.seed),
        server: resolve(values.server),
        serveArgs: values['shelf-args'].split(/\s+/).filter(Boolean),
        treesDir: resolve(values.trees),
        timeoutMs: parseCount('--timeout', values.timeout) * 1000,
        json: values.json,
    }
}

/** Benchmarks run the built server: a missing build is the first thing to say, not a spawn error. */
export function assertServerBuilt(server: string): void {
    if (!existsSync(server))
        throw new Error(`${server} does not exist: run \`npm run build\` or pass --server`)
}

export const DEFAULT_SERVER = resolve(
    dirname(fileURLToPath(import.meta.url)),
    '..',
    'dist',
    'cli',
    'main.js',
)

/** The command-line options every benchmark that starts Shelf takes, for `parseArgs`. */
export const serverBenchOptions = {
    seed: { type: 'string' },
    server: { type: 'string', default: DEFAULT_SERVER },
    'shelf-args': { type: 'string', default: '' },
    trees: { type: 'string', default: DEFAULT_TREES_DIR },
    timeout: { type: 'string', default: '600' },
    json: { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h', default: false },
} as const

// The Sonolus protocol pages item lists by 20.
export const LEVELS_PER_PAGE = 20
const LISTENING_LINE = /listening on (https?:\/\/\S+)/
const WATCHING_LINE = /^watching every folder after/
const SAVED_LINE = /^the start's saves done after/
const CHECKED_LINE = /^checked the start snapshot after/
const STOP_GRACE_MS = 5_000
const MIB = 1024 * 1024

export type CacheState = 'cold' | 'warm'

/** How Shelf is started: its built entry point run by node, or `npm start` as the README says. */
export type Launch = 'node' | 'npm start'

export interface ServerOptions {
    /** Shelf's CLI entry point, `dist/cli/main.js`; `npm start` runs in the project it belongs to. */
    server: string
    launch?: Launch
    /** Resolve at the listening line, not once every folder is watched (`watched` says when). */
    untilListening?: boolean
    timeoutMs: number
    /** Flags for node itself, before the script (`--cpu-prof`, say). */
    nodeArgs?: string[]
    /** More flags for `shelf serve` (`--no-watch`, say). */
    serveArgs?: string[]
}

export interface RunningServer {
    child: ChildProcess
    url: string
    /** Until the listening line. */
    startupSeconds: number
    /** CPU (user + system) used until the listening line; under npm, by its whole process group. */
    startupCpuSeconds: number | null
    /** Until every folder is watched: measurements start only then. Null with --no-watch, or when resolved at listening. */
    watchingSeconds: number | null
    /** Seconds from the launch until every folder is watched; null with --no-watch. */
    watched: Promise<number | null>
    /**
     * Seconds from the launch until the start's own saves (made packs, hash cache, the start
     * snapshot) are over: after a new build or a changed folder they run after the listening
     * line, beside the first requests, and take a core for seconds at 100,000 levels.
     */
    saved: Promise<number>
    /**
     * Seconds from the launch until a start from the snapshot has it verified (it serves the
     * snapshot from the listening line on); null when it took nothing from one (said by the
     * start's saves, which wait for it).
     */
    checked: Promise<number | null>
    output: () => string
}

export interface Memory {
    peakBytes: number
    rssBytes: number
}

export interface StartMeasurement {
    /** Levels in the tree; 0 for the example content. */
    levels: number
    cache: CacheState
    launch?: Launch
    startupSeconds: number
    /** CPU seconds until the listening line (npm, its shell and node under `npm start`). */
    startupCpuSeconds: number | null
    /** Until every folder is watched; null with --no-watch. */
    watchingSeconds: number | null
    /** Until a start from the snapshot has it verified; null for a cold start. */
    checkedSeconds: number | null
    peakRssMiB: number | null
    rssAfterListMiB: number | null
    firstListMs: number
    pageCount: number | null
    error?: string
}

// ---------------------------------------------------------------------------------------------
// Server process
// ---------------------------------------------------------------------------------------------

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

/** The project a built entry point belongs to: dist/cli/main.js is two folders below it. */
const projectOf = (server: string) => resolve(dirname(server), '..', '..')

/** Starts Shelf on `contentDir`, or on the example content when it is undefined. */
export function startServer(
    options: ServerOptions,
    contentDir: string | undefined,
): Promise<RunningServer> {
    const started = performance.now()
    // The example is the content folder of the checkout whose server runs (not of the one the
    // benchmark runs from), as under `npm start`, and as stateFolderOf removes for a cold start.
    const serveArgs = [
        '--content',
        contentDir ?? join(projectOf(options.server), 'content'),
        '--port',
        '0',
        '--host',
        '127.0.0.1',
        ...(options.serveArgs ?? []),
    ]
    // The server is node itself, not a shell, so the pid measured is the one doing the work; npm
    // start runs in a process group of its own, so that stopping it stops the server it started.
    const child =
        options.launch === 'npm start'
            ? spawn('npm', ['start', '--silent', '--', ...serveArgs], {
                  cwd: projectOf(options.server),
                  stdio: ['ignore', 'pipe', 'pipe'],
                  detached: true,
              })
            : spawn(
                  process.execPath,
                  [...(options.nodeArgs ?? []), options.server, 'serve', ...serveArgs],
                  { stdio: ['ignore', 'pipe', 'pipe'] },
              )
    const tail = keepTail(4000)
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => tail.push(chunk))
    // Stdout is read to the end, whatever it says, so a chatty server never blocks on a full pipe.
    const lines = createInterface({ input: child.stdout! })
    // Shelf serves before it watches every folder; until it does, chokidar's scan competes for the CPU.
    const watches = !(options.serveArgs ?? []).includes('--no-watch')
    let watchedAt: (seconds: number | null) => void = () => {}
    const watched = new Promise<number | null>((resolveWatched) => (watchedAt = resolveWatched))
    if (!watches) watchedAt(null)
    let savedAt: (seconds: number) => void = () => {}
    const saved = new Promise<number>((resolveSaved) => (savedAt = resolveSaved))
    let checkedAt: (seconds: number | null) => void = () => {}
    const checked = new Promise<number | null>((resolveChecked) => (checkedAt = resolveChecked))

    return new Promise((resolvePromise, reject) => {
        const fail = (message: string) => {
            clearTimeout(timer)
            killServer(child, 'SIGKILL')
            const output = tail.get().trimEnd()
            reject(new Error(output === '' ? message : `${message}\n${output}`))
        }
        const timer = setTimeout(
            () => fail(`no listening line within ${options.timeoutMs / 1000} s`),
            options.timeoutMs,
        )
        child.once('error', (error) => fail(`could not start: ${error.message}`))
        child.once('exit', (code, signal) => fail(`exited before listening (${signal ?? code})`))
        let listening: { url: string; startupSeconds: number } | undefined
        // Read at the listening line, before the first request or the watcher's scan adds to it.
        let startupCpu: Promise<number | null> = Promise.resolve(null)
        const ready = (watchingSeconds: number | null) => {
            clearTimeout(timer)
            child.removeAllListeners('exit')
            void startupCpu.then((startupCpuSeconds) =>
                resolvePromise({
                    child,
                    ...listening!,
                    startupCpuSeconds,
                    watchingSeconds,
                    watched,
                    saved,
                    checked,
                    output: tail.get,
                }),
            )
        }
        lines.on('line', (line) => {
            tail.push(`${line}\n`)
            const match = LISTENING_LINE.exec(line)
            if (match?.[1] && !listening) {
                listening = {
                    url: match[1].replace(/\/+$/, ''),
                    startupSeconds: (performance.now() - started) / 1000,
                }
                startupCpu =
                    options.launch === 'npm start'
                        ? groupCpuSecondsOf(child.pid)
                        : cpuSecondsOf(child.pid)
                if (!watches || options.untilListening) ready(null)
            } else if (listening && CHECKED_LINE.test(line)) {
                checkedAt((performance.now() - started) / 1000)
            } else if (listening && SAVED_LINE.test(line)) {
                checkedAt(null)
                savedAt((performance.now() - started) / 1000)
            } else if (listening && WATCHING_LINE.test(line)) {
                const seconds = (performance.now() - started) / 1000
                watchedAt(seconds)
                if (!options.untilListening) ready(seconds)
            }
        })
    })
}

/** A server started by `npm start` leads a process group: the signal goes to all of it. */
function killServer(child: ChildProcess, signal: NodeJS.Signals): void {
    try {
        if (child.pid !== undefined && child.spawnargs[0] === 'npm')
            process.kill(-child.pid, signal)
        else child.kill(signal)
    } catch {
        // already gone
    }
}

export async function stopServer(child: ChildProcess): Promise<void> {
    if (child.exitCode !== null || child.signalCode !== null) return
    const exited = new Promise<void>((resolvePromise) => child.once('exit', () => resolvePromise()))
    killServer(child, 'SIGTERM')
    const timer = setTimeout(() => killServer(child, 'SIGKILL'), STOP_GRACE_MS)
    await exited
    clearTimeout(timer)
}

/** VmHWM is the kernel's own high-water mark of RSS, so no start-up peak is missed between polls. */
export async function readMemory(pid: number | undefined): Promise<Memory | null> {
    if (pid === undefined) return null
    let status: string
    try {
        status = await readFile(`/proc/${pid}/status`, 'utf8')
    } catch {
        return null // not Linux, or already gone
    }
    const kib = (field: string) =>
        Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1])
    const peakBytes = kib('VmHWM') * 1024
    const rssBytes = kib('VmRSS') * 1024
    return Number.isFinite(peakBytes) && Number.isFinite(rssBytes) ? { peakBytes, rssBytes } : null
}

/** Linux's clock ticks a second, the unit of /proc/PID/stat's times. */
const CLOCK_TICKS = 100

/**
 * User and system CPU seconds a process has used so far (Linux), or null. Per request it says
 * what a request costs the server however busy the rest of a shared machine is.
 */
export async function cpuSecondsOf(pid: number | undefined): Promise<number | null> {
    if (pid === undefined) return null
    try {
        const stat = await readFile(`/proc/${pid}/stat`, 'utf8')
        // After the command's name in parentheses: state, then 10 fields, then utime and stime.
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
        return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS
    } catch {
        return null
    }
}

/**
 * CPU seconds used so far by the living processes of the group `leader` leads (Linux), or null:
 * `npm start`'s npm, its shell and the server node.
 */
async function groupCpuSecondsOf(leader: number | undefined): Promise<number | null> {
    if (leader === undefined) return null
    let total = 0
    for (const entry of await readdir('/proc').catch(() => [])) {
        if (!/^\d+$/.test(entry)) continue
        const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '')
        // After the name in parentheses: state, parent, then the process group.
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
        if (Number(fields[2]) === leader) total += (await cpuSecondsOf(Number(entry))) ?? 0
    }
    return total
}

export function toMiB(bytes: number | undefined): number | null {
    return bytes === undefined ? null : bytes / MIB
}

// ---------------------------------------------------------------------------------------------
// Requests
// ---------------------------------------------------------------------------------------------

export interface HttpAnswer {
    status: number
    headers: IncomingHttpHeaders
    body: Buffer
}

/** node:http without an agent: the connection closes with the response, nothing lingers. */
export function request(url: string, headers: Record<string, string> = {}): Promise<HttpAnswer> {
    return new Promise((resolvePromise, reject) => {
        const outgoing = get(url, { agent: false, headers }, (response) => {
            const chunks: Buffer[] = []
            response.on('data', (chunk: Buffer) => chunks.push(chunk))
            response.on('error', reject)
            response.on('end', () =>
                resolvePromise({
                    status: response.statusCode ?? 0,
                    headers: response.headers,
                    body: Buffer.concat(chunks),
                }),
            )
        })
        outgoing.on('error', reject)
    })
}

export async function getJson(url: string): Promise<unknown> {
    const answer = await request(url)
    const body = answer.body.toString('utf8')
    if (answer.status !== 200)
        throw new Error(`GET ${url}: HTTP ${answer.status}: ${body.slice(0, 300)}`)
    try {
        return JSON.parse(body)
    } catch {
        throw new Error(`GET ${url}: not JSON: ${body.slice(0, 300)}`)
    }
}

export function pageCountOf(list: unknown): number | null {
    if (typeof list !== 'object' || list === null || !('pageCount' in list)) return null
    return typeof list.pageCount === 'number' ? list.pageCount : null
}

// ---------------------------------------------------------------------------------------------
// Measuring a start
// ---------------------------------------------------------------------------------------------

function stateFolderOf(options: ServerOptions, contentDir: string | undefined): string {
    const args = options.serveArgs ?? []
    const flag = args.indexOf('--cache')
    if (flag >= 0 && args[flag + 1]) return resolve(args[flag + 1]!)
    return join(contentDir ?? join(projectOf(options.server), 'content'), '.shelf')
}

/**
 * Starts Shelf on a folder of `levels` levels (the example content when `contentDir` is undefined)
 * and measures the start: time to the listening line, the first list request, and memory right
 * after it. The server is left running.
 */
export async function startMeasured(
    options: ServerOptions,
    contentDir: string | undefined,
    levels: number,
    cache: CacheState,
): Promise<{ server: RunningServer; measurement: StartMeasurement }> {
    // Removing Shelf's state folder makes this a first start: `.shelf` in the content folder, or
    // the one `--cache DIR` names (which keeps a shared, read-only tree unwritten).
    if (cache === 'cold') await removeTree(stateFolderOf(options, contentDir))
    const server = await startServer(options, contentDir)
    try {
        const listStarted = performance.now()
        const list = await getJson(`${server.url}/service/levels/list?localization=en`)
        const firstListMs = performance.now() - listStarted
        // Under npm the process started is npm's, not the server's.
        const memory = options.launch === 'npm start' ? null : await readMemory(server.child.pid)

        const pageCount = pageCountOf(list)
        const expected = Math.ceil(levels / LEVELS_PER_PAGE)
        const measurement: StartMeasurement = {
            levels,
            cache,
            launch: options.launch ?? 'node',
            startupSeconds: server.startupSeconds,
            startupCpuSeconds: server.startupCpuSeconds,
            watchingSeconds: server.watchingSeconds,
            checkedSeconds: cache === 'warm' ? await server.checked : null,
            peakRssMiB: toMiB(memory?.peakBytes),
            rssAfterListMiB: toMiB(memory?.rssBytes),
            firstListMs,
            pageCount,
        }
        if (contentDir !== undefined && pageCount !== expected) {
            measurement.error = `pageCount ${pageCount} in /service/levels/list, expected ${expected}`
        }
        return { server, measurement }
    } catch (error) {
        await stopServer(server.child)
        throw error
    }
}

/**
 * A start measured, then stopped. A first start is stopped only once its saves are done (or the
 * timeout passes), as a user's first start would have run that long: stopped at once, it leaves
 * no snapshot, and the start after it, measured as a warm one, reads every folder again.
 */
export async function measureStart(
    options: ServerOptions,
    contentDir: string | undefined,
    levels: number,
    cache: CacheState,
): Promise<StartMeasurement> {
    const { server, measurement } = await startMeasured(options, contentDir, levels, cache)
    if (cache === 'cold') {
        let timer: NodeJS.Timeout | undefined
        const timeout = new Promise((resolve) => (timer = setTimeout(resolve, options.timeoutMs)))
        await Promise.race([server.saved, timeout])
        clearTimeout(timer)
    }
    await stopServer(server.child)
    return measurement
}

export function failedMeasurement(
    levels: number,
    cache: CacheState,
    error: unknown,
): StartMeasurement {
    return {
        levels,
        cache,
        startupSeconds: Number.NaN,
        startupCpuSeconds: null,
        watchingSeconds: null,
        checkedSeconds: null,
        peakRssMiB: null,
        rssAfterListMiB: null,
        firstListMs: Number.NaN,
        pageCount: null,
        error: error instanceof Error ? error.message : String(error),
    }
}

/** The start-up table both benchmarks print. */
export function renderStartTable(rows: StartMeasurement[]): string {
    const header = [
        'levels',
        'launch',
        'cache',
        'start-up s',
        'CPU s',
        'checked s',
        'watching s',
        'peak RSS MiB',
        'RSS after list MiB',
        'first list ms',
        'check',
    ]
    const body = rows.map((row) => [
        row.levels === 0 ? 'example' : String(row.levels),
        row.launch ?? 'node',
        row.cache,
        formatNumber(row.startupSeconds, 2),
        formatNumber(row.startupCpuSeconds, 2),
        row.checkedSeconds === null ? '-' : formatNumber(row.checkedSeconds, 2),
        row.watchingSeconds === null ? '-' : formatNumber(row.watchingSeconds, 2),
        formatNumber(row.peakRssMiB, 1),
        formatNumber(row.rssAfterListMiB, 1),
        formatNumber(row.firstListMs, 0),
        row.error === undefined ? 'ok' : 'FAIL',
    ])
    const failures = rows
        .filter((row) => row.error !== undefined)
        .map((row) => `\n${row.levels} levels, ${row.cache}: ${row.error}`)
    return renderTable(header, body, [1, 2, 10]) + failures.join('')
}
