/**
 * What the writes after a start cost the event loop: the longest it stands still from the
 * listening line of a start taken from the snapshot, through the watcher's first scan, the save
 * of the next snapshot, and the first writes, each reload of which is the first of its kind.
 *
 *   node --import tsx bench/write-stall.ts [--levels 100000] [--every 5] [--profile DIR] [--top 8]
 *                                          [--seed 1] [--server dist/cli/main.js] [--timeout S]
 *
 * 1. The tree's state folder must hold a snapshot of this build (`.shelf/start-records.jsonl`
 *    names the build): when it does not, a start is made first and stopped once it is written.
 * 2. Shelf is started on it watching, signing players in, with bench/loop-stall-probe.ts loaded
 *    into it: every turn of its event loop of 5 ms or more is noted, on the clock and in the main
 *    thread's CPU time. From the listening line on, this process also asks `/sonolus/info` (a
 *    kept answer) every `--every` ms, one request at a time: its longest answer is the longest
 *    a request waited for the loop, as a client sees it.
 * 3. During the first scan: a content edit (a level's `item.json` replaced by a rename, its
 *    title changed) 1 s after the listening line, and a player's comment on another level 1 s
 *    later. After the scan, once the snapshot is saved: another content edit, and 7 s later
 *    another comment, then 12 s more, in which the server saves its hash cache (10 s after the
 *    last reload).
 * 4. The longest stall in each stretch between these events, against the target (20 ms: "the
 *    event loop is never blocked by a write's reload for more than 20 ms", issue 22), the CPU
 *    time of the main thread being the figure held to it; then the longest stalls, with when
 *    they began after the listening line. The edits are undone and the comments removed after.
 *
 * `--profile DIR` runs the server under `node --cpu-prof` (which slows it: figures are then for
 * finding the stalls, not for the target).
 */
import { get, Agent } from 'node:http'
import { existsSync, statSync } from 'node:fs'
import { mkdtemp, open, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises'
import { loadavg, tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { parseArgs } from 'node:util'
import { signInPlayer, type Player } from '../test/support/player.js'
import { createTestSigner } from '../test/support/signing.js'
import { parseCount } from './generate-pack-tree.js'
import { formatNumber, log, renderTable } from './output.js'
import {
    assertServerBuilt,
    readServerBenchOptions,
    serverBenchOptions,
    startServer,
    stopServer,
    type RunningServer,
} from './shelf-process.js'
import { framesDuring, mainThreadProfile } from './stall-frames.js'
import { ensureSearchSettings } from './search-settings.js'
import { ensureTree } from './trees.js'
import { editLevel } from './level-edits.js'

const stallTargetMs = 20
/** A little more than the quiet the server waits for before it saves its hash cache (server.ts). */
const hashCacheSavedAfterMs = 12_000
const afterEditMs = 7_000
const probe = join(dirname(fileURLToPath(import.meta.url)), 'loop-stall-probe.js')

const { values } = parseArgs({
    options: {
        ...serverBenchOptions,
        levels: { type: 'string', default: '100000' },
        every: { type: 'string', default: '5' },
        profile: { type: 'string' },
        top: { type: 'string', default: '8' },
    },
})
const settings = readServerBenchOptions(values)
const levels = parseCount('--levels', values.levels)
const everyMs = parseCount('--every', values.every)

const loadAverage = () =>
    loadavg()
        .map((value) => value.toFixed(1))
        .join(' ')

/**
 * A stall as the probe notes it: when it began (ms since the epoch, and µs on the clock of CPU
 * profiles), on the clock and in CPU time.
 */
type Stall = { at: number; mono: number; ms: number; cpuMs: number }

/** The first line of the snapshot's records file, which names the build that wrote it. */
const snapshotHeader = async (records: string) => {
    const file = await open(records).catch(() => undefined)
    if (!file) return undefined
    try {
        const { buffer, bytesRead } = await file.read(Buffer.alloc(65_536), 0, 65_536, 0)
        const line = buffer.toString('utf8', 0, bytesRead).split('\n')[0]!
        return JSON.parse(line) as { shelf?: string }
    } catch {
        return undefined
    } finally {
        await file.close()
    }
}

/**
 * Whether the snapshot is this build's: its header names the build by the hash of the sources it
 * was built from (src/content/start-snapshot.ts, `shelfBuild`), which the build writes beside its
 * code as `.sources-sha1`.
 */
const snapshotOfThisBuild = async (records: string) => {
    const named = (await snapshotHeader(records))?.shelf?.split(':')[1]
    const stamp = join(dirname(settings.server), '..', '.sources-sha1')
    const sources = (await readFile(stamp, 'utf8').catch(() => '')).trim()
    return sources !== '' && named === sources
}

/**
 * Whether a snapshot's save that began after `since` (ms since the epoch) is over: its records
 * renamed into place, then its checks (start-snapshot.ts writes them as `.next` first).
 */
const savedSince = (records: string, since: number) =>
    existsSync(records) &&
    statSync(records).mtimeMs > since &&
    !existsSync(join(dirname(records), 'start-checks.jsonl.next'))

/** Waits for a save after `since`, for at most `waitMs`; false when there was none. */
const snapshotSaved = async (records: string, since: number, waitMs: number) => {
    const deadline = Date.now() + waitMs
    while (!savedSince(records, since)) {
        if (Date.now() > deadline) return false
        await sleep(100)
    }
    return true
}

/** A start that reads what it must and writes the snapshot the measured start takes. */
const writeSnapshot = async (dir: string, records: string) => {
    log('no snapshot of this build: a start to write one …')
    const since = Date.now()
    const server = await startServer(
        { server: settings.server, timeoutMs: settings.timeoutMs, serveArgs: settings.serveArgs },
        dir,
    )
    const saved = await snapshotSaved(records, since, settings.timeoutMs)
    await stopServer(server.child)
    if (!saved) throw new Error('the snapshot was not written in time')
}

/**
 * `/sonolus/info` asked one at a time, every `everyMs`: when each was asked (ms since the epoch)
 * and how long it took, and how many failed (a connection reset, say): counted and said, where
 * one failure used to end the run before it put the tree's `server.yaml` back.
 */
const pinging = (url: string) => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 })
    const answers: [at: number, ms: number][] = []
    let failed = 0
    let stopped = false
    const ask = () =>
        new Promise<void>((done, fail) => {
            const at = Date.now()
            const started = performance.now()
            get(`${url}/sonolus/info`, { agent }, (response) => {
                response.resume()
                response.on('end', () => {
                    answers.push([at, performance.now() - started])
                    done()
                })
                response.on('error', fail)
            }).on('error', fail)
        })
    const done = (async () => {
        while (!stopped) {
            await ask().catch(() => failed++)
            await sleep(everyMs)
        }
        agent.destroy()
    })()
    return {
        answers,
        stop: async () => {
            stopped = true
            await done
            if (failed) log(`${failed} of the pings failed (not timed)`)
        },
    }
}

/** The form players comment on levels with, as the example's server.yaml has it. */
const commentForm = `  community:
    - type: comment
      title: "#COMMENT"
      icon: comment
      options:
        - { query: content, type: textArea, name: "#CONTENT", required: true, limit: 1000 }
`

/**
 * Offers the comment form on levels in the tree's server.yaml (which a generated tree's lacks),
 * replacing it by a rename: the file may be a link shared with other copies of the tree.
 * Answers how to put it back.
 */
const offerComments = async (dir: string) => {
    const file = join(dir, 'server.yaml')
    const temporary = join(dir, '.server.yaml.bench')
    const original = await readFile(file, 'utf8')
    if (!/^levels:\n/m.test(original)) throw new Error(`${file} has no "levels:" to add a form to`)
    await writeFile(temporary, original.replace(/^levels:\n/m, `levels:\n${commentForm}`))
    await rename(temporary, file)
    return async () => {
        await writeFile(temporary, original)
        await rename(temporary, file)
    }
}

/** Posts a comment on a level; answers how to remove what it wrote. */
const comment = async (player: Player, dir: string, name: string) => {
    const folder = join(dir, 'levels', name, 'comments')
    const existed = existsSync(folder)
    const before = new Set(existed ? await readdir(folder) : [])
    const answer = await player.submit(`/levels/${name}/community/submit`, {
        type: 'comment',
        content: 'A comment by bench/write-stall.ts',
    })
    if (answer.status !== 200)
        throw new Error(`the comment answered ${answer.status}: ${answer.body.message ?? ''}`)
    return async () => {
        if (!existed) return rm(folder, { recursive: true, force: true })
        for (const file of await readdir(folder))
            if (!before.has(file)) await rm(join(folder, file), { force: true })
    }
}

/** A named moment of the run (ms since the epoch); each begins a stretch that ends at the next. */
type Moment = { name: string; at: number }

/** The run: the writes at their moments, the pings and the probe's stalls throughout. */
const run = async (dir: string, server: RunningServer, player: () => Promise<Player>) => {
    const listening = Date.now()
    const pings = pinging(server.url)
    const undo: (() => Promise<unknown>)[] = []
    const moments: Moment[] = [{ name: 'the listening line', at: listening }]
    const now = (name: string) => moments.push({ name, at: Date.now() })
    const names = (await readdir(join(dir, 'levels'))).sort()
    // Levels far apart in the list, none the one before.
    const level = (index: number) => names[Math.floor((names.length * index) / 5)]!
    let watched = 0
    const scanned = server.watched.then(() => (watched = Date.now()))
    const during = () => (watched ? '' : ', during the first scan')
    try {
        const writer = await player()
        await sleep(Math.max(0, listening + 1000 - Date.now()))
        now(`a content edit${during()}`)
        undo.push(await editLevel(dir, level(1), 'bench/write-stall.ts'))
        await sleep(Math.max(0, listening + 2000 - Date.now()))
        now(`a comment${during()}`)
        undo.push(await comment(writer, dir, level(2)))
        await scanned
        moments.push({ name: 'every folder watched (the snapshot is saved)', at: watched })
        if (!(await snapshotSaved(join(dir, '.shelf', 'start-records.jsonl'), watched, 60_000)))
            log(`the snapshot was not saved within a minute; the server said:\n${server.output()}`)
        now('the snapshot saved')
        await sleep(1000)
        now('a content edit')
        undo.push(await editLevel(dir, level(3), 'bench/write-stall.ts'))
        await sleep(afterEditMs)
        now("a comment, then the hash cache's save")
        undo.push(await comment(writer, dir, level(4)))
        await sleep(hashCacheSavedAfterMs)
        now('end')
    } finally {
        await pings.stop()
        await stopServer(server.child)
        for (const step of undo.reverse()) await step()
    }
    return {
        moments: moments.sort((a, b) => a.at - b.at),
        answers: pings.answers,
        listening,
        watched,
    }
}

const readStalls = async (file: string): Promise<Stall[]> =>
    (await readFile(file, 'utf8').catch(() => ''))
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Stall)

/** The longest stall (by CPU time) and answer in each stretch between two moments, against the target. */
const stretchRows = (moments: Moment[], stalls: Stall[], answers: [number, number][]) =>
    moments.slice(0, -1).map(({ name, at: from }, index) => {
        const to = moments[index + 1]!.at
        const inside = stalls.filter((stall) => stall.at >= from && stall.at < to)
        const longest = inside.reduce<Stall | undefined>(
            (worst, stall) => (!worst || stall.cpuMs > worst.cpuMs ? stall : worst),
            undefined,
        )
        const longestAnswer = Math.max(
            0,
            ...answers.filter(([at]) => at >= from && at < to).map(([, ms]) => ms),
        )
        return [
            `from ${name}`,
            formatNumber((to - from) / 1000, 1),
            longest ? `${formatNumber(longest.ms, 1)} · ${formatNumber(longest.cpuMs, 1)}` : '< 5',
            String(inside.filter((stall) => stall.cpuMs > stallTargetMs).length),
            formatNumber(longestAnswer, 1),
            (longest?.cpuMs ?? 0) <= stallTargetMs ? 'met' : 'MISSED',
        ]
    })

const main = async () => {
    assertServerBuilt(settings.server)
    const dir = await ensureTree(settings.treesDir, levels, settings.seed)
    await ensureSearchSettings(dir, levels, settings.seed)
    const records = join(dir, '.shelf', 'start-records.jsonl')
    if (!(await snapshotOfThisBuild(records))) await writeSnapshot(dir, records)
    const work = await mkdtemp(join(tmpdir(), 'shelf-stall-'))
    const stallLog = join(work, 'stalls.jsonl')
    const signer = await createTestSigner()
    const withoutComments = await offerComments(dir)
    // Read by the probe in the server, which inherits this process's environment.
    process.env.SHELF_STALL_LOG = stallLog
    log(`starting Shelf on ${levels} levels from its snapshot …`)
    const server = await startServer(
        {
            server: settings.server,
            timeoutMs: settings.timeoutMs,
            untilListening: true,
            nodeArgs: [
                '--import',
                pathToFileURL(probe).href,
                ...(values.profile
                    ? ['--cpu-prof', '--cpu-prof-dir', resolve(values.profile)]
                    : []),
            ],
            serveArgs: ['--signature-key', signer.publicKeyFile, ...settings.serveArgs],
        },
        dir,
    )
    log(`listening after ${server.startupSeconds.toFixed(1)} s`)
    const signIn = () =>
        signInPlayer(
            { url: server.url, root: `${server.url}/service` },
            signer,
            'bench-stall',
            'Bench',
        )
    const { moments, answers, listening } = await run(dir, server, signIn).finally(withoutComments)
    const load = loadAverage()
    const stalls = (await readStalls(stallLog)).filter((stall) => stall.at >= listening)
    await rm(work, { recursive: true, force: true })
    console.log(
        `\nStalls of the event loop after a start from the snapshot, ${levels.toLocaleString('en-US')} levels: ` +
            `clock · main thread's CPU in ms (the probe notes 5 ms and more), requests every ${everyMs} ms; ` +
            `target: no stall over ${stallTargetMs} ms of CPU; load average ${load}\n`,
    )
    console.log(
        renderTable(
            ['stretch', 's', 'longest stall', `over ${stallTargetMs} ms`, 'longest answer ms', ''],
            stretchRows(moments, stalls, answers),
            [0, 5],
        ),
    )
    const longest = [...stalls]
        .sort((a, b) => b.cpuMs - a.cpuMs)
        .slice(0, parseCount('--top', values.top))
    const profile = values.profile && (await mainThreadProfile(resolve(values.profile)))
    console.log(
        `\nLongest stalls: s after the listening line, clock · CPU ms${profile ? ", and the functions most on the main thread's stack meanwhile" : ''}`,
    )
    for (const stall of longest) {
        console.log(
            `  ${formatNumber((stall.at - listening) / 1000, 2)} s: ${formatNumber(stall.ms, 1)} · ${formatNumber(stall.cpuMs, 1)}`,
        )
        if (!profile) continue
        const { samples, frames } = framesDuring(
            profile,
            stall.mono,
            stall.mono + (stall.ms + 1) * 1000,
            12,
        )
        console.log(`    ${samples} samples: ${frames.join(' · ')}`)
    }
}

await main()
