/**
 * `node --import tsx bench/boards.ts`: boards of submitted plays and people at scale.
 *
 *   node --import tsx bench/boards.ts [--plays 100000] [--one-level 10000] [--players 2000]
 *                                      [--duration 5] [--connections 10] [--starts 3] [--regenerate]
 *                                      [--accept-encoding 'gzip'] [--first-asks 200] [--warmup 1]
 *
 * On a folder of generated plays (bench/generate-plays.ts): the warm start with the boards
 * server.yaml declares against the same folder with `boards: []` (building boards and people is
 * what the first adds), then the p99 latency of a board page of the busy level, of a record, and of
 * a person's page, driven by autocannon at a fixed number of connections, every request numbered
 * so that no answer comes from Shelf's cache of answers by URL, with the Accept-Encoding given
 * (`''` for none), after the server has settled (the work a start leaves for after `listening on`,
 * such as the sweep for leftovers of unfinished writes, is done) and after an unmeasured warm-up
 * of each scenario; and the server's CPU time per request, which a busy machine inflates less than
 * latency. Then the first asks of many people and board pages one after another: the cost of
 * building an answer, which a new snapshot (every submitted play) makes again. Run `npm run build`
 * first: it starts dist/cli/main.js.
 */
import autocannon from 'autocannon'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { loadavg } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { busyLevel, generatePlays, playerId } from './generate-plays.js'
import { log, renderTable } from './output.js'
import {
    assertServerBuilt,
    cpuSecondsOf,
    DEFAULT_SERVER,
    startServer,
    stopServer,
} from './shelf-process.js'

const { values } = parseArgs({
    options: {
        plays: { type: 'string', default: '100000' },
        'one-level': { type: 'string', default: '10000' },
        players: { type: 'string', default: '2000' },
        duration: { type: 'string', default: '5' },
        connections: { type: 'string', default: '10' },
        starts: { type: 'string', default: '3' },
        regenerate: { type: 'boolean', default: false },
        'accept-encoding': { type: 'string', default: 'gzip' },
        'first-asks': { type: 'string', default: '200' },
        warmup: { type: 'string', default: '1' },
    },
})
const plays = Number(values.plays)
const tree = {
    plays,
    oneLevel: Number(values['one-level']),
    players: Number(values.players),
    seed: 1,
}
const out = join(import.meta.dirname, 'out', `plays-${plays}`)
const content = join(out, 'content')
const state = join(out, 'state')
const serverOptions = {
    server: DEFAULT_SERVER,
    timeoutMs: 600_000,
    serveArgs: ['--no-watch', '--cache', state, '--name', 'sonolus'],
}

const median = (values: number[]) =>
    [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!
const percentile = (values: number[], fraction: number) => {
    const sorted = [...values].sort((a, b) => a - b)
    return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)] ?? NaN
}

/** Serves the folder with server.yaml's boards, or with none, and says how long the start took. */
const warmStart = async (boards: boolean) => {
    const file = join(content, 'server.yaml')
    const declared = readFileSync(file, 'utf8')
    const withoutBoards = declared.replace(/^boards:\n(?: {2}.*\n)+/m, 'boards: []\n')
    writeFileSync(file, boards ? declared : withoutBoards)
    try {
        const running = await startServer(serverOptions, content)
        await stopServer(running.child)
        return running.startupSeconds
    } finally {
        writeFileSync(file, declared)
    }
}

const headers: Record<string, string> = values['accept-encoding']
    ? { 'accept-encoding': values['accept-encoding'] }
    : {}

/** CPU milliseconds the server spends on `run`'s requests, per request. */
const cpuPerRequest = async (pid: number | undefined, run: () => Promise<number>) => {
    const before = await cpuSecondsOf(pid)
    const requests = await run()
    const after = await cpuSecondsOf(pid)
    return before === null || after === null ? NaN : ((after - before) * 1000) / requests
}

/**
 * Waits until the server has spent under a tenth of a core for 2 s in a row, and says how many
 * seconds that took: one quiet half second came between two pieces of the start's work.
 */
const settled = async (pid: number | undefined) => {
    const started = performance.now()
    const stepMs = 500
    const quietSteps = 4
    let quiet = 0
    let last = await cpuSecondsOf(pid)
    while (last !== null && quiet < quietSteps && performance.now() - started < 300_000) {
        await new Promise((resolve) => setTimeout(resolve, stepMs))
        const now = await cpuSecondsOf(pid)
        if (now === null) break
        quiet = now - last < (0.1 * stepMs) / 1000 ? quiet + 1 : 0
        last = now
    }
    return (performance.now() - started) / 1000
}

const drive = async (url: string, path: string, duration = Number(values.duration)) => {
    const samples: number[] = []
    let sent = 0
    const result = await new Promise<autocannon.Result>((resolve, reject) => {
        const instance = autocannon(
            {
                url,
                connections: Number(values.connections),
                duration,
                headers,
                requests: [
                    {
                        method: 'GET',
                        setupRequest: (request) => ({
                            ...request,
                            path: `${path}${path.includes('?') ? '&' : '?'}bench-request=${sent++}`,
                        }),
                    },
                ],
            },
            (error: unknown, finished: autocannon.Result) =>
                error ? reject(error as Error) : resolve(finished),
        )
        instance.on('response', (_client, status, _bytes, ms) => {
            if (status === 200) samples.push(ms)
        })
    })
    return {
        requests: result.requests.total,
        non2xx: result.non2xx,
        p50: percentile(samples, 0.5),
        p99: percentile(samples, 0.99),
    }
}

const main = async () => {
    assertServerBuilt(DEFAULT_SERVER)
    if (values.regenerate || !existsSync(join(content, 'server.yaml'))) {
        log(
            `generating ${plays} plays (${tree.oneLevel} on ${busyLevel}) of ${tree.players} players…`,
        )
        generatePlays(content, state, tree)
    }
    log('a first start reads every play (and keeps what it read in the state folder)…')
    const cold = await startServer(serverOptions, content)
    await stopServer(cold.child)
    const starts = Number(values.starts)
    const withBoards: number[] = []
    const withoutBoards: number[] = []
    for (let index = 0; index < starts; index++) {
        withoutBoards.push(await warmStart(false))
        withBoards.push(await warmStart(true))
    }
    const running = await startServer(serverOptions, content)
    try {
        const board = `/sonolus/levels/${busyLevel}/leaderboards/arcade`
        const details = (await (await fetch(`${running.url}${board}/records/list`)).json()) as {
            pageCount: number
        }
        const middle = Math.floor(details.pageCount / 2)
        const page = (await (
            await fetch(`${running.url}${board}/records/list?page=${middle}`)
        ).json()) as { records: { name: string; playerUser: { name: string } }[] }
        const record = page.records[0]!
        const settling = await settled(running.child.pid)
        log(
            `settled ${settling.toFixed(1)} s after listening; ${details.pageCount} pages on ${busyLevel}'s arcade board; driving ${values.connections} connections for ${values.duration} s each after ${values.warmup} s of warm-up…`,
        )
        const scenarios = [
            ['board page (middle)', `${board}/records/list?page=${middle}`],
            ['board top', board],
            ['record', `${board}/records/${record.name}`],
            ['person', `/sonolus/users/${record.playerUser.name}`],
        ] as const
        const pid = running.child.pid
        const rows: string[][] = []
        for (const [name, path] of scenarios) {
            // Unmeasured: lets the JIT settle and the connections open.
            if (Number(values.warmup) > 0) await drive(running.url, path, Number(values.warmup))
            let result!: Awaited<ReturnType<typeof drive>>
            const cpu = await cpuPerRequest(pid, async () => {
                result = await drive(running.url, path)
                return result.requests
            })
            rows.push([
                name,
                String(result.requests),
                String(result.non2xx),
                result.p50.toFixed(2),
                result.p99.toFixed(2),
                cpu.toFixed(3),
            ])
        }
        const firstAsks = Number(values['first-asks'])
        const firsts = [
            ['person', (index: number) => `/sonolus/users/${playerId(index)}`],
            ['board page', (index: number) => `${board}/records/list?page=${index}`],
        ] as const
        const firstRows: string[][] = []
        for (const [name, pathOf] of firsts) {
            const asks = Math.min(firstAsks, name === 'person' ? tree.players : details.pageCount)
            const cpu = await cpuPerRequest(pid, async () => {
                for (let index = 0; index < asks; index++)
                    await (await fetch(`${running.url}${pathOf(index)}`, { headers })).arrayBuffer()
                return asks
            })
            firstRows.push([name, String(asks), cpu.toFixed(3)])
        }
        const load = loadavg()
            .map((value) => value.toFixed(2))
            .join(' ')
        console.log(
            `\nboards and people: ${plays} plays (${tree.oneLevel} on one level), ${tree.players} players; load average ${load} (taken under load)\n`,
        )
        console.log(`Accept-Encoding: ${values['accept-encoding'] || '(none)'}\n`)
        console.log(
            renderTable(
                ['scenario', 'requests', 'non-2xx', 'p50 ms', 'p99 ms', 'CPU ms/request'],
                rows,
                [0],
            ),
        )
        console.log('\nfirst asks, one after another (each answer built, then kept):\n')
        console.log(renderTable(['answer', 'asks', 'CPU ms/request'], firstRows, [0]))
        const added = median(withBoards) / median(withoutBoards) - 1
        console.log(
            `\nwarm start: ${median(withoutBoards).toFixed(2)} s without boards, ${median(withBoards).toFixed(2)} s with them (median of ${starts}): +${(added * 100).toFixed(1)}% (target ≤ 20%)`,
        )
    } finally {
        await stopServer(running.child)
    }
}

await main()
