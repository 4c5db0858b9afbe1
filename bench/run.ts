/**
 * `npm run bench`: Shelf's speed, memory and scale on generated pack trees.
 *
 *   npm run bench -- [--levels 1000,10000,100000] [--quick] [--duration S] [--warmup S]
 *                    [--connections N] [--scenarios list,details,…] [--no-ceiling] [--cold]
 *                    [--profile DIR] [--shelf-args=FLAGS] [--seed S] [--server dist/cli/main.js]
 *                    [--trees bench/out] [--timeout S] [--json]
 *
 * For each size: the tree is reused or generated (bench/trees.ts), a `server.yaml` declaring
 * an advanced search form is written into it (the pack format's info.json has no search
 * forms), Shelf is started on it (a cold start first when it has no cache yet, or with
 * `--cold`), and then, with the cache warm, every scenario is driven over loopback by
 * autocannon at a fixed number of connections, without and with a real client's
 * Accept-Encoding: Shelf and, in turns of 2 s, a bare node:http server (bench/ceiling-server.ts)
 * answering the same URLs with the same bytes Shelf sent, compressed ones included, the most any
 * Node server can do here. Each scenario's URL is taken from the running server: the
 * level's name from the list, the resource from that level's cover, the deep page is the last.
 * Quick search asks 219 different searches in turn (bench/search-queries.ts), broad ones among them, each request
 * numbered so that Shelf's cache of answers never answers it: every request is a search.
 *
 * Tables go to stdout (or JSON with --json), progress to stderr.
 */
import { fork, type ChildProcess } from 'node:child_process'
import { existsSync } from 'node:fs'
import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http'
import { availableParallelism, cpus, totalmem } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { setTimeout as sleep } from 'node:timers/promises'
import { parseArgs } from 'node:util'
import autocannon from 'autocannon'
import type { CeilingAnswer } from './ceiling-server.js'
import { DEFAULT_SEED, parseCount } from './generate-pack-tree.js'
import { formatCount, formatNumber, log, renderTable } from './output.js'
import {
    assertServerBuilt,
    cpuSecondsOf,
    readServerBenchOptions,
    type ServerBenchSettings,
    serverBenchOptions,
    failedMeasurement,
    getJson,
    measureStart,
    pageCountOf,
    readMemory,
    renderStartTable,
    request,
    startMeasured,
    stopServer,
    toMiB,
    type HttpAnswer,
    type RunningServer,
    type ServerOptions,
    type StartMeasurement,
} from './shelf-process.js'
import { Agent, get as httpGet } from 'node:http'
import { ALONE_QUERIES, quickSearchQueries, UNCACHED_PARAMETER } from './search-queries.js'
import { ensureSearchSettings } from './search-settings.js'
import { ensureTree } from './trees.js'

const BENCH_DIR = dirname(fileURLToPath(import.meta.url))
const CEILING_SERVER = join(BENCH_DIR, 'ceiling-server.ts')

/** A word of generated titles (one of 40 nouns): about one level in thirty has it. */
const QUICK_SEARCH_WORD = 'dream'
/** The advanced form of SEARCH_SETTINGS: levels rated 20 or more (about half), hardest first. */
const ADVANCED_SEARCH = 'type=advanced&minRating=20&sort=rating'

const SCENARIO_IDS = [
    'info',
    'list',
    'deep-list',
    'quick-search',
    'advanced-search',
    'details',
    'resource',
    'revalidate',
    // The web pages of the same list and level (src/web/), as a browser with the language chosen asks.
    'page-list',
    'page-item',
] as const
type ScenarioId = (typeof SCENARIO_IDS)[number]

const DEFAULT_SIZES = [1_000, 10_000, 100_000]
const QUICK_SIZES = [1_000, 10_000]
const DEFAULT_DURATION_S = 10
const DEFAULT_WARMUP_S = 2
const QUICK_DURATION_S = 2
const QUICK_WARMUP_S = 0.5
/** Each server's turn when Shelf and the ceiling take turns (driveInTurns). */
const ROUND_S = 2
/** Request timeout; any request slower than this counts as an error. */
const REQUEST_TIMEOUT_S = 10

interface Options extends ServerBenchSettings {
    sizes: number[]
    durationS: number
    warmupS: number
    connections: number
    scenarios: ScenarioId[]
    ceiling: boolean
    /** Accept-Encoding values each scenario is driven with ('' for none). */
    encodings: string[]
    cold: boolean
    profileDir: string | null
}

/** What a browser, the web client and most HTTP stacks send; every scenario is also driven with it. */
const REAL_CLIENT_ENCODINGS = 'gzip, deflate, br'

interface Scenario {
    id: ScenarioId
    /** The request's Accept-Encoding, or '' for a client that asks for no compression. */
    acceptEncoding: string
    /** Path and query, as requested of both servers. */
    path: string
    /** Paths asked in turn instead of `path` alone (`path` is the first), each with UNCACHED_PARAMETER. */
    variants?: string[]
    headers: Record<string, string>
    expectedStatus: number
}

interface Load {
    /** CPU time the server used per measured request (user and system), when it could be read. */
    cpuMsPerRequest: number | null
    requests: number
    requestsPerSecond: number
    p50Ms: number
    p99Ms: number
    /** Responses whose status was not the one expected, by status. */
    unexpected: Record<string, number>
    /** Connection errors and timeouts. */
    errors: number
    timeouts: number
}

interface ScenarioResult {
    id: ScenarioId
    acceptEncoding: string
    /** The answer's Content-Encoding, or '' for none. */
    contentEncoding: string
    path: string
    expectedStatus: number
    bodyBytes: number
    shelf: Load | null
    ceiling: Load | null
    /** Shelf's requests per second over the ceiling's. */
    ratio: number | null
    ok: boolean
    problem?: string
}

/** One broad quick search asked alone, one request at a time. */
interface AloneResult {
    keywords: string
    acceptEncoding: string
    /** Levels found (from the answer's page count). */
    pages: number
    medianMs: number
    maxMs: number
}

interface SizeResult {
    levels: number
    starts: StartMeasurement[]
    scenarios: ScenarioResult[]
    alone: AloneResult[]
    /** VmHWM of the warm server at the end: the peak of its start and of every scenario. */
    peakRssMiB: number | null
    rssAfterLoadMiB: number | null
    error?: string
}

interface Target {
    name: string
    goal: string
    measured: string
    met: boolean | null
}

// ---------------------------------------------------------------------------------------------
// The advanced search form
// ---------------------------------------------------------------------------------------------

// ---------------------------------------------------------------------------------------------
// Scenarios, taken from the running server
// ---------------------------------------------------------------------------------------------

function field(value: unknown, ...path: (string | number)[]): unknown {
    let current = value
    for (const key of path) {
        if (typeof current !== 'object' || current === null) return undefined
        current = (current as Record<string | number, unknown>)[key]
    }
    return current
}

function requireString(value: unknown, what: string): string {
    if (typeof value !== 'string' || value === '') throw new Error(`no ${what} in Shelf's answer`)
    return value
}

async function discoverScenarios(shelfUrl: string, encodings: string[]): Promise<Scenario[]> {
    const base = `${shelfUrl}/service`
    const locale = 'localization=en'
    const listPath = `/service/levels/list?${locale}`

    const list = await getJson(`${shelfUrl}${listPath}`)
    const pageCount = pageCountOf(list)
    if (pageCount === null || pageCount < 1)
        throw new Error(`the level list has no pages (pageCount ${pageCount})`)
    const levelName = requireString(
        field(list, 'items', 0, 'name'),
        'level name in the first list page',
    )

    const details = await getJson(`${base}/levels/${encodeURIComponent(levelName)}?${locale}`)
    const coverUrl = new URL(
        requireString(field(details, 'item', 'cover', 'url'), 'cover URL'),
        shelfUrl,
    )

    // Each encoding of the list has an ETag of its own, which its revalidation sends.
    const etagIn = async (acceptEncoding: string) =>
        requireString(
            (await request(`${shelfUrl}${listPath}`, acceptEncodingHeader(acceptEncoding))).headers
                .etag,
            'ETag on the level list',
        )

    const quickPathOf = (keywords: string, page = 0) =>
        `/service/levels/list?${locale}&type=quick&keywords=${encodeURIComponent(keywords)}${page ? `&page=${page}` : ''}`
    const quickPath = quickPathOf(QUICK_SEARCH_WORD)
    const quickPages = pageCountOf(await getJson(`${shelfUrl}${quickPath}`))
    if (!quickPages) throw new Error(`quick search "${QUICK_SEARCH_WORD}" found nothing`)
    const quickVariants = [
        quickPath,
        ...quickSearchQueries()
            .filter(({ keywords, page }) => keywords !== QUICK_SEARCH_WORD || page > 0)
            .map(({ keywords, page }) => quickPathOf(keywords, page)),
    ]
    const advancedPath = `/service/levels/list?${locale}&${ADVANCED_SEARCH}`
    const advancedPages = pageCountOf(await getJson(`${shelfUrl}${advancedPath}`))
    if (!advancedPages) throw new Error(`advanced search "${ADVANCED_SEARCH}" found nothing`)

    const scenarios: Scenario[] = []
    for (const acceptEncoding of encodings) {
        const headers = acceptEncodingHeader(acceptEncoding)
        const get = (id: ScenarioId, path: string): Scenario => ({
            id,
            acceptEncoding,
            path,
            headers,
            expectedStatus: 200,
        })
        scenarios.push(
            get('info', `/service/info?${locale}`),
            get('list', listPath),
            get('deep-list', `${listPath}&page=${pageCount - 1}`),
            { ...get('quick-search', quickPath), variants: quickVariants },
            get('advanced-search', advancedPath),
            get('details', `/service/levels/${encodeURIComponent(levelName)}?${locale}`),
            get('resource', `${coverUrl.pathname}${coverUrl.search}`),
            {
                ...get('revalidate', listPath),
                headers: { ...headers, 'if-none-match': await etagIn(acceptEncoding) },
                expectedStatus: 304,
            },
            get('page-list', '/levels/list?lang=en'),
            get('page-item', `/levels/${encodeURIComponent(levelName)}?lang=en`),
        )
    }
    return scenarios
}

function acceptEncodingHeader(acceptEncoding: string): Record<string, string> {
    return acceptEncoding ? { 'accept-encoding': acceptEncoding } : {}
}

// ---------------------------------------------------------------------------------------------
// The ceiling
// ---------------------------------------------------------------------------------------------

/** Headers about the connection are the server's own business; the rest are copied. */
const CONNECTION_HEADERS = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding'])

function ceilingAnswer(scenario: Scenario, path: string, answer: HttpAnswer): CeilingAnswer {
    const headers: OutgoingHttpHeaders = {}
    for (const [name, value] of Object.entries(answer.headers as IncomingHttpHeaders)) {
        if (value !== undefined && !CONNECTION_HEADERS.has(name)) headers[name] = value
    }
    return {
        url: path,
        ifNoneMatch: scenario.headers['if-none-match'] ?? '',
        acceptEncoding: scenario.acceptEncoding,
        status: answer.status,
        headers,
        bodyBase64: answer.body.toString('base64'),
    }
}

interface Ceiling {
    child: ChildProcess
    url: string
}

function startCeiling(answers: CeilingAnswer[]): Promise<Ceiling> {
    const child = fork(CEILING_SERVER, [], {
        execArgv: ['--import', 'tsx'],
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    })
    return new Promise((resolvePromise, reject) => {
        child.once('error', reject)
        child.once('exit', (code, signal) =>
            reject(new Error(`the ceiling server exited (${signal ?? code})`)),
        )
        child.once('message', (message) => {
            child.removeAllListeners('exit')
            const port = field(message, 'port')
            if (typeof port !== 'number') {
                child.kill('SIGKILL')
                reject(new Error('the ceiling server did not say its port'))
                return
            }
            resolvePromise({ child, url: `http://127.0.0.1:${port}` })
        })
        child.send(answers)
    })
}

async function stopCeiling(ceiling: Ceiling): Promise<void> {
    if (ceiling.child.exitCode !== null || ceiling.child.signalCode !== null) return
    const exited = new Promise<void>((resolvePromise) =>
        ceiling.child.once('exit', () => resolvePromise()),
    )
    ceiling.child.disconnect()
    const timer = setTimeout(() => ceiling.child.kill('SIGKILL'), 5_000)
    await exited
    clearTimeout(timer)
}

// ---------------------------------------------------------------------------------------------
// Load
// ---------------------------------------------------------------------------------------------

/** Latencies in milliseconds, unrounded (autocannon's own histogram keeps whole milliseconds). */
class Samples {
    private values = new Float64Array(1 << 16)
    length = 0

    push(value: number): void {
        if (this.length === this.values.length) {
            const grown = new Float64Array(this.values.length * 2)
            grown.set(this.values)
            this.values = grown
        }
        this.values[this.length++] = value
    }

    percentiles(...fractions: number[]): number[] {
        const sorted = this.values.slice(0, this.length).sort()
        return fractions.map((fraction) =>
            sorted.length === 0
                ? Number.NaN
                : (sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)] ??
                  Number.NaN),
        )
    }
}

function runAutocannon(options: autocannon.Options, samples?: Samples): Promise<autocannon.Result> {
    return new Promise((resolvePromise, reject) => {
        const instance = autocannon(options, (error: unknown, result: autocannon.Result) =>
            error
                ? reject(error instanceof Error ? error : new Error(String(error)))
                : resolvePromise(result),
        )
        if (samples) instance.on('response', (_client, _status, _bytes, ms) => samples.push(ms))
    })
}

/**
 * Drives the scenario against each server (Shelf, then the ceiling) in turns: the measured time
 * is cut into `rounds` slices and the servers take them alternately, so that a change in what the
 * rest of a shared machine is doing weighs on both alike, and their ratio stays meaningful.
 */
async function driveInTurns(
    servers: { url: string; pid?: number }[],
    scenario: Scenario,
    options: Options,
): Promise<Load[]> {
    const runs = servers.map(({ url: baseUrl, pid }) => ({
        pid,
        cpuSeconds: 0 as number | null,
        common: {
            url: `${baseUrl}${scenario.path}`,
            headers: scenario.headers,
            connections: options.connections,
            timeout: REQUEST_TIMEOUT_S,
            ...(scenario.variants && {
                requests: [{ method: 'GET', setupRequest: inTurn(scenario.variants) }],
            }),
        } satisfies autocannon.Options,
        samples: new Samples(),
        seconds: 0,
        unexpected: {} as Record<string, number>,
        errors: 0,
        timeouts: 0,
    }))
    // Unmeasured: lets the JIT settle and the connections open.
    if (options.warmupS > 0)
        for (const run of runs) await runAutocannon({ ...run.common, duration: options.warmupS })
    const rounds = Math.max(1, Math.round(options.durationS / ROUND_S))
    for (let round = 0; round < rounds; round++) {
        for (const run of runs) {
            const cpuBefore = await cpuSecondsOf(run.pid)
            const result = await runAutocannon(
                { ...run.common, duration: options.durationS / rounds },
                run.samples,
            )
            const cpuAfter = await cpuSecondsOf(run.pid)
            run.cpuSeconds =
                cpuBefore === null || cpuAfter === null || run.cpuSeconds === null
                    ? null
                    : run.cpuSeconds + cpuAfter - cpuBefore
            run.seconds += result.duration
            run.errors += result.errors
            run.timeouts += result.timeouts
            for (const [status, stats] of Object.entries(result.statusCodeStats ?? {})) {
                if (Number(status) !== scenario.expectedStatus && stats.count)
                    run.unexpected[status] = (run.unexpected[status] ?? 0) + stats.count
            }
        }
    }
    return runs.map((run) => {
        const [p50Ms = Number.NaN, p99Ms = Number.NaN] = run.samples.percentiles(0.5, 0.99)
        return {
            cpuMsPerRequest:
                run.cpuSeconds === null || run.samples.length === 0
                    ? null
                    : (run.cpuSeconds * 1000) / run.samples.length,
            requests: run.samples.length,
            requestsPerSecond: run.seconds > 0 ? run.samples.length / run.seconds : Number.NaN,
            p50Ms,
            p99Ms,
            unexpected: run.unexpected,
            errors: run.errors,
            timeouts: run.timeouts,
        }
    })
}

/** Sets each request's path to the next variant, numbered so that no two requests are alike. */
function inTurn(variants: string[]): (request: autocannon.Request) => autocannon.Request {
    let sent = 0
    return (request) => {
        const path = `${variants[sent % variants.length]}&${UNCACHED_PARAMETER}=${sent}`
        sent++
        return { ...request, path }
    }
}

function loadProblem(load: Load | null): string | null {
    if (load === null) return null
    const parts = Object.entries(load.unexpected).map(
        ([status, count]) => `${count} × HTTP ${status}`,
    )
    if (load.errors > 0) parts.push(`${load.errors} errors (${load.timeouts} timeouts)`)
    if (load.requests === 0) parts.push('no responses')
    return parts.length === 0 ? null : parts.join(', ')
}

// ---------------------------------------------------------------------------------------------
// Broad searches alone
// ---------------------------------------------------------------------------------------------

const ALONE_WARMUP = 5
const ALONE_REQUESTS = 40

/**
 * Each of ALONE_QUERIES asked one request at a time over one kept-alive connection, every
 * request numbered so that none is answered from what Shelf keeps: the latency of one broad
 * search with nothing else running.
 */
async function timeAlone(shelfUrl: string, encodings: string[]): Promise<AloneResult[]> {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 })
    const results: AloneResult[] = []
    let sent = 0
    try {
        for (const acceptEncoding of encodings) {
            for (const keywords of ALONE_QUERIES) {
                const path = `/service/levels/list?localization=en&type=quick&keywords=${encodeURIComponent(keywords)}`
                const pages = pageCountOf(await getJson(`${shelfUrl}${path}`)) ?? 0
                const samples = new Samples()
                for (let index = 0; index < ALONE_WARMUP + ALONE_REQUESTS; index++) {
                    const started = performance.now()
                    const status = await timedGet(
                        agent,
                        `${shelfUrl}${path}&${UNCACHED_PARAMETER}=alone-${sent++}`,
                        acceptEncodingHeader(acceptEncoding),
                    )
                    if (status !== 200)
                        throw new Error(
                            `quick search ${JSON.stringify(keywords)} answered HTTP ${status}`,
                        )
                    if (index >= ALONE_WARMUP) samples.push(performance.now() - started)
                }
                const [medianMs = Number.NaN, maxMs = Number.NaN] = samples.percentiles(0.5, 1)
                results.push({ keywords, acceptEncoding, pages, medianMs, maxMs })
            }
        }
    } finally {
        agent.destroy()
    }
    return results
}

function timedGet(agent: Agent, url: string, headers: Record<string, string>): Promise<number> {
    return new Promise((resolvePromise, reject) => {
        httpGet(url, { agent, headers }, (response) => {
            response.on('data', () => {})
            response.on('error', reject)
            response.on('end', () => resolvePromise(response.statusCode ?? 0))
        }).on('error', reject)
    })
}

// ---------------------------------------------------------------------------------------------
// One size
// ---------------------------------------------------------------------------------------------

async function benchScenarios(
    options: Options,
    shelf: RunningServer,
    scenarios: Scenario[],
): Promise<ScenarioResult[]> {
    // Each URL asked once, to check it and to give the ceiling the very bytes Shelf sends.
    const answers = new Map<Scenario, HttpAnswer>()
    const ceilingAnswers: CeilingAnswer[] = []
    for (const scenario of scenarios) {
        for (const path of scenario.variants ?? [scenario.path]) {
            const answer = await request(`${shelf.url}${path}`, scenario.headers)
            if (!answers.has(scenario)) answers.set(scenario, answer)
            ceilingAnswers.push(ceilingAnswer(scenario, path, answer))
        }
    }
    const ceiling = options.ceiling ? await startCeiling(ceilingAnswers) : null
    const results: ScenarioResult[] = []
    try {
        for (const scenario of scenarios) {
            const answer = answers.get(scenario)!
            const result: ScenarioResult = {
                id: scenario.id,
                acceptEncoding: scenario.acceptEncoding,
                contentEncoding: String(answer.headers['content-encoding'] ?? ''),
                path: scenario.path,
                expectedStatus: scenario.expectedStatus,
                bodyBytes: answer.body.length,
                shelf: null,
                ceiling: null,
                ratio: null,
                ok: false,
            }
            results.push(result)
            if (answer.status !== scenario.expectedStatus) {
                result.problem = `HTTP ${answer.status} from Shelf, expected ${scenario.expectedStatus}: ${answer.body.toString('utf8').slice(0, 200)}`
                log(`${scenario.id}: ${result.problem}`)
                continue
            }
            const label = `${scenario.id}${scenario.acceptEncoding ? ` (${scenario.acceptEncoding})` : ''}`
            log(`  ${label}: Shelf${ceiling ? ' and the ceiling in turns' : ''} …`)
            const servers = [
                { url: shelf.url, pid: shelf.child.pid },
                ...(ceiling ? [{ url: ceiling.url, pid: ceiling.child.pid }] : []),
            ]
            const [shelfLoad, ceilingLoad] = await driveInTurns(servers, scenario, options)
            result.shelf = shelfLoad!
            if (ceilingLoad) {
                result.ceiling = ceilingLoad
                result.ratio = result.shelf.requestsPerSecond / ceilingLoad.requestsPerSecond
            }
            const problems = [
                loadProblem(result.shelf),
                loadProblem(result.ceiling) && `ceiling: ${loadProblem(result.ceiling)}`,
            ].filter((problem): problem is string => problem !== null)
            if (problems.length > 0) result.problem = problems.join('; ')
            result.ok = problems.length === 0
        }
    } finally {
        if (ceiling) await stopCeiling(ceiling)
    }
    return results
}

async function benchSize(options: Options, levels: number): Promise<SizeResult> {
    const result: SizeResult = {
        levels,
        starts: [],
        scenarios: [],
        alone: [],
        peakRssMiB: null,
        rssAfterLoadMiB: null,
    }
    const dir = await ensureTree(options.treesDir, levels, options.seed)
    await ensureSearchSettings(dir, levels, options.seed)

    const serverOptions: ServerOptions = {
        server: options.server,
        timeoutMs: options.timeoutMs,
        serveArgs: options.serveArgs,
    }
    // A warm start is what a server restarted on its folder does; a first start is measured too
    // when it is needed anyway (no cache yet) or asked for.
    if (options.cold || !existsSync(join(dir, '.shelf', 'hashes.json'))) {
        log(`starting Shelf on ${levels} levels (cold cache) …`)
        const cold = await measureStart(serverOptions, dir, levels, 'cold').catch(
            (error: unknown) => failedMeasurement(levels, 'cold', error),
        )
        result.starts.push(cold)
    }

    log(`starting Shelf on ${levels} levels (warm cache) …`)
    const profiled: ServerOptions = options.profileDir
        ? { ...serverOptions, nodeArgs: ['--cpu-prof', '--cpu-prof-dir', options.profileDir] }
        : serverOptions
    let started: Awaited<ReturnType<typeof startMeasured>>
    try {
        started = await startMeasured(profiled, dir, levels, 'warm')
    } catch (error) {
        result.starts.push(failedMeasurement(levels, 'warm', error))
        result.error = 'Shelf did not start'
        return result
    }
    result.starts.push(started.measurement)
    const { server } = started
    try {
        // What a player sees most of the time is a server whose start is over: after a new build
        // the snapshot's save takes a core for seconds beside the first requests (at 100,000
        // levels it allocated three times what the quick searches beside it did).
        const savedSeconds = await Promise.race([
            server.saved,
            sleep(options.timeoutMs, undefined, { ref: false }),
        ])
        if (savedSeconds === undefined) throw new Error("the start's saves did not end in time")
        log(`the start's saves done ${formatNumber(savedSeconds, 1)} s after the launch: measuring`)
        const all = await discoverScenarios(server.url, options.encodings)
        const scenarios = all.filter((scenario) => options.scenarios.includes(scenario.id))
        result.scenarios = await benchScenarios(options, server, scenarios)
        if (options.scenarios.includes('quick-search'))
            result.alone = await timeAlone(server.url, options.encodings)
        const memory = await readMemory(server.child.pid)
        result.peakRssMiB = toMiB(memory?.peakBytes)
        result.rssAfterLoadMiB = toMiB(memory?.rssBytes)
    } catch (error) {
        result.error = error instanceof Error ? error.message : String(error)
    } finally {
        await stopServer(server.child)
    }
    return result
}

// ---------------------------------------------------------------------------------------------
// Targets (docs/performance.md)
// ---------------------------------------------------------------------------------------------

const MIN_RATIO = 0.6
const MAX_QUICK_SEARCH_P99_MS = 20
const MAX_BROAD_ALONE_MS = 5
// Issue 14's goals: memory is the peak while watching, as `shelf serve` runs by default.
const MAX_START_100K_S = 5
const MAX_PEAK_100K_MIB = 800
const MAX_PEAK_10K_MIB = 250

function checkTargets(sizes: SizeResult[], options: Options): Target[] {
    const targets: Target[] = []
    const at = (levels: number) => sizes.find((size) => size.levels === levels)
    const limit = (value: number | null | undefined, max: number) =>
        value === null || value === undefined || Number.isNaN(value) ? null : value <= max

    for (const size of sizes) {
        for (const id of [
            'list',
            'details',
            'deep-list',
            'advanced-search',
            'page-list',
            'page-item',
        ] as const) {
            for (const scenario of size.scenarios.filter((scenario) => scenario.id === id)) {
                if (scenario.ratio === null) continue
                targets.push({
                    name: `${id}${scenario.acceptEncoding ? ' (compressed)' : ''} throughput, ${formatCount(size.levels)} levels`,
                    goal: `≥ ${MIN_RATIO * 100}% of ceiling`,
                    measured: `${(scenario.ratio * 100).toFixed(0)}%`,
                    met: scenario.ratio >= MIN_RATIO,
                })
            }
        }
    }
    const largest = at(100_000)
    for (const scenario of largest?.scenarios.filter(
        (scenario) => scenario.id === 'quick-search',
    ) ?? []) {
        if (!scenario.shelf || options.connections !== 10) continue
        targets.push({
            name: `quick search p99${scenario.acceptEncoding ? ' (compressed)' : ''}, 100,000 levels, 10 connections`,
            goal: `≤ ${MAX_QUICK_SEARCH_P99_MS} ms`,
            measured: `${formatNumber(scenario.shelf.p99Ms, 1)} ms`,
            met: limit(scenario.shelf.p99Ms, MAX_QUICK_SEARCH_P99_MS),
        })
    }
    for (const alone of largest?.alone ?? []) {
        targets.push({
            name: `quick search "${alone.keywords}" alone${alone.acceptEncoding ? ' (compressed)' : ''}, median, 100,000 levels`,
            goal: `≤ ${MAX_BROAD_ALONE_MS} ms`,
            measured: `${formatNumber(alone.medianMs, 2)} ms`,
            met: limit(alone.medianMs, MAX_BROAD_ALONE_MS),
        })
    }
    const warm = largest?.starts.find((start) => start.cache === 'warm')
    if (warm) {
        targets.push({
            name: 'start-up (warm), 100,000 levels',
            goal: `≤ ${MAX_START_100K_S} s`,
            measured: `${formatNumber(warm.startupSeconds, 1)} s`,
            met: limit(warm.startupSeconds, MAX_START_100K_S),
        })
    }
    if (largest) {
        targets.push({
            name: 'peak memory, 100,000 levels',
            goal: `≤ ${MAX_PEAK_100K_MIB} MiB`,
            measured: `${formatNumber(largest.peakRssMiB, 0)} MiB`,
            met: limit(largest.peakRssMiB, MAX_PEAK_100K_MIB),
        })
    }
    const medium = at(10_000)
    if (medium) {
        targets.push({
            name: 'peak memory, 10,000 levels',
            goal: `≤ ${MAX_PEAK_10K_MIB} MiB`,
            measured: `${formatNumber(medium.peakRssMiB, 0)} MiB`,
            met: limit(medium.peakRssMiB, MAX_PEAK_10K_MIB),
        })
    }
    return targets
}

// ---------------------------------------------------------------------------------------------
// Output
// ---------------------------------------------------------------------------------------------

function machine() {
    return {
        cpus: availableParallelism(),
        cpuModel: cpus()[0]?.model ?? 'unknown',
        memoryGiB: Math.round((totalmem() / 1024 ** 3) * 10) / 10,
        node: process.version,
        platform: `${process.platform} ${process.arch}`,
    }
}

function renderSize(size: SizeResult, options: Options): string {
    const lines = [
        `${formatCount(size.levels)} levels: ${options.connections} connections, ${options.durationS} s per scenario after ${options.warmupS} s of warm-up`,
        '',
    ]
    const header = [
        'scenario',
        'encoding',
        'bytes',
        'Shelf req/s',
        'p50 ms',
        'p99 ms',
        'CPU ms/req',
        'ceiling req/s',
        'ceiling p99 ms',
        'ceiling CPU ms/req',
        'ratio',
        'check',
    ]
    const rows = size.scenarios.map((scenario) => [
        scenario.id,
        scenario.contentEncoding || (scenario.acceptEncoding ? 'none' : '-'),
        formatCount(scenario.bodyBytes),
        formatCount(scenario.shelf?.requestsPerSecond),
        formatNumber(scenario.shelf?.p50Ms, 2),
        formatNumber(scenario.shelf?.p99Ms, 2),
        formatNumber(scenario.shelf?.cpuMsPerRequest, 3),
        formatCount(scenario.ceiling?.requestsPerSecond),
        formatNumber(scenario.ceiling?.p99Ms, 2),
        formatNumber(scenario.ceiling?.cpuMsPerRequest, 3),
        scenario.ratio === null ? 'n/a' : `${(scenario.ratio * 100).toFixed(0)}%`,
        scenario.ok ? 'ok' : 'FAIL',
    ])
    if (rows.length > 0) lines.push(renderTable(header, rows, [0, 1, 11]), '')
    lines.push(
        `  encoding: the answer's Content-Encoding when asked with Accept-Encoding: ${REAL_CLIENT_ENCODINGS} ('none' if sent as it is), '-' when asked without`,
    )
    for (const scenario of size.scenarios.filter((scenario) => !scenario.acceptEncoding)) {
        const status =
            scenario.expectedStatus === 200
                ? ''
                : ` (If-None-Match, expects ${scenario.expectedStatus})`
        lines.push(`  ${scenario.id.padEnd(15)} GET ${scenario.path}${status}`)
        if (scenario.problem) lines.push(`  ${''.padEnd(15)} FAIL: ${scenario.problem}`)
    }
    if (size.alone.length > 0) {
        lines.push(
            '',
            `broad quick searches alone: ${ALONE_REQUESTS} requests each, one at a time, latency at the client`,
        )
        const aloneRows = size.alone.map((alone) => [
            alone.keywords,
            alone.acceptEncoding || '-',
            formatCount(alone.pages),
            formatNumber(alone.medianMs, 2),
            formatNumber(alone.maxMs, 2),
        ])
        lines.push(
            renderTable(
                ['keywords', 'Accept-Encoding', 'pages', 'median ms', 'max ms'],
                aloneRows,
                [0, 1],
            ),
        )
    }
    lines.push('', renderStartTable(size.starts))
    lines.push(
        `after load: peak RSS ${formatNumber(size.peakRssMiB, 1)} MiB, RSS ${formatNumber(size.rssAfterLoadMiB, 1)} MiB`,
    )
    if (size.error) lines.push(`FAIL: ${size.error}`)
    return lines.join('\n')
}

function renderTargets(targets: Target[]): string {
    if (targets.length === 0) return ''
    const rows = targets.map((target) => [
        target.name,
        target.goal,
        target.measured,
        target.met === null ? 'n/a' : target.met ? 'met' : 'MISSED',
    ])
    return renderTable(['target', 'goal', 'measured', ''], rows, [0, 1, 3])
}

// ---------------------------------------------------------------------------------------------
// CLI
// ---------------------------------------------------------------------------------------------

const USAGE = `usage: npm run bench -- [options]   (or: node --import tsx bench/run.ts [options])

  --levels 1000,10000,100000  tree sizes (default: all three)
  --quick                     1,000 and 10,000 levels, ${QUICK_DURATION_S} s per scenario after ${QUICK_WARMUP_S} s warm-up
  --duration S                measured seconds per scenario and server (default ${DEFAULT_DURATION_S})
  --warmup S                  unmeasured seconds before each (default ${DEFAULT_WARMUP_S})
  --connections N             concurrent connections (default 10)
  --scenarios a,b             a subset of: ${SCENARIO_IDS.join(', ')}
  --no-ceiling                drive Shelf only
  --encodings none,real       drive each scenario without Accept-Encoding (none), with
                              Accept-Encoding: ${REAL_CLIENT_ENCODINGS} (real), or both (default)
  --cold                      also measure a first start (cache removed), even when a cache exists
  --profile DIR               run the loaded Shelf under node --cpu-prof, writing the profile to DIR
  --shelf-args "FLAGS"        more flags for \`shelf serve\`, e.g. --shelf-args=--no-watch
  --seed S                    tree seed (default ${DEFAULT_SEED})
  --server FILE               Shelf's CLI (default dist/cli/main.js)
  --trees DIR                 where trees are cached (default bench/out)
  --timeout S                 longest start-up waited for (default 600)
  --json                      print JSON instead of tables`

function parseSeconds(option: string, text: string): number {
    const value = Number(text)
    if (!Number.isFinite(value) || value < 0)
        throw new Error(`${option} wants seconds, got ${JSON.stringify(text)}`)
    return value
}

function parseEncodings(text: string): string[] {
    return text.split(',').map((part) => {
        if (part.trim() === 'none') return ''
        if (part.trim() === 'real') return REAL_CLIENT_ENCODINGS
        throw new Error(`--encodings: unknown ${JSON.stringify(part)}; known: none, real`)
    })
}

function parseScenarios(text: string): ScenarioId[] {
    const ids = text.split(',').map((part) => part.trim())
    for (const id of ids) {
        if (!(SCENARIO_IDS as readonly string[]).includes(id)) {
            throw new Error(
                `--scenarios: unknown ${JSON.stringify(id)}; known: ${SCENARIO_IDS.join(', ')}`,
            )
        }
    }
    return ids as ScenarioId[]
}

function parseOptions(argv: string[]): Options {
    const { values } = parseArgs({
        args: argv,
        options: {
            levels: { type: 'string' },
            quick: { type: 'boolean', default: false },
            duration: { type: 'string' },
            warmup: { type: 'string' },
            connections: { type: 'string', default: '10' },
            scenarios: { type: 'string', default: SCENARIO_IDS.join(',') },
            'no-ceiling': { type: 'boolean', default: false },
            encodings: { type: 'string', default: 'none,real' },
            cold: { type: 'boolean', default: false },
            profile: { type: 'string' },
            ...serverBenchOptions,
        },
    })
    if (values.help) {
        console.log(USAGE)
        process.exit(0)
    }
    const connections = parseCount('--connections', values.connections)
    if (connections < 1) throw new Error('--connections wants at least 1')
    return {
        sizes:
            values.levels === undefined
                ? values.quick
                    ? QUICK_SIZES
                    : DEFAULT_SIZES
                : values.levels.split(',').map((part) => parseCount('--levels', part.trim())),
        ...readServerBenchOptions(values),
        durationS:
            values.duration === undefined
                ? values.quick
                    ? QUICK_DURATION_S
                    : DEFAULT_DURATION_S
                : parseSeconds('--duration', values.duration),
        warmupS:
            values.warmup === undefined
                ? values.quick
                    ? QUICK_WARMUP_S
                    : DEFAULT_WARMUP_S
                : parseSeconds('--warmup', values.warmup),
        connections,
        scenarios: parseScenarios(values.scenarios),
        ceiling: !values['no-ceiling'],
        encodings: parseEncodings(values.encodings),
        cold: values.cold,
        profileDir: values.profile === undefined ? null : resolve(values.profile),
    }
}

async function main(): Promise<void> {
    const options = parseOptions(process.argv.slice(2))
    assertServerBuilt(options.server)
    if (options.durationS <= 0) throw new Error('--duration wants more than 0 seconds')
    const started = performance.now()
    const sizes: SizeResult[] = []
    for (const levels of options.sizes) {
        const size = await benchSize(options, levels)
        sizes.push(size)
        if (!options.json) {
            console.log(`${renderSize(size, options)}\n`)
        }
    }
    const targets = checkTargets(sizes, options)
    const seconds = (performance.now() - started) / 1000
    if (options.json) {
        const { server: _server, treesDir: _trees, ...shown } = options
        console.log(
            JSON.stringify(
                { machine: machine(), options: shown, seconds, sizes, targets },
                null,
                4,
            ),
        )
    } else {
        const host = machine()
        const targetTable = renderTargets(targets)
        if (targetTable) console.log(`${targetTable}\n`)
        console.log(
            `${host.cpus} CPUs (${host.cpuModel}), ${host.memoryGiB} GiB, Node ${host.node}, ${host.platform}; ${seconds.toFixed(0)} s in all`,
        )
    }
    if (options.profileDir)
        log(`CPU profiles in ${options.profileDir} (summarise with bench/profile-summary.ts)`)
    const failed = sizes.some(
        (size) =>
            size.error !== undefined ||
            size.starts.some((start) => start.error) ||
            size.scenarios.some((scenario) => !scenario.ok),
    )
    if (failed) process.exitCode = 1
}

main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error)
    process.exitCode = 1
})
