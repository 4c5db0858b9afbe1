/**
 * Measures how long Shelf takes to start on pack trees of several sizes, and how much memory it
 * needs to get there.
 *
 *   node --import tsx bench/startup.ts --levels example,1000,10000 [--seed 1] [--cache cold,warm]
 *                                      [--launch node,npm] [--server dist/cli/main.js]
 *                                      [--shelf-args=FLAGS] [--change N] [--timeout 600] [--json]
 *
 * Trees are generated once into bench/out/ (gitignored) and reused while their size, seed and
 * generator version match; `example` is the project's own content/. Each size is started with
 * Shelf's cache removed (`cold`), then again with the cache the first start left (`warm`), by
 * node running dist/cli/main.js and, with `--launch npm`, by `npm start` as a user starts it
 * (which first checks whether src/ changed since the last build; memory is then not read, npm's
 * process being the one started). Before cold starts the tree is read once, so that they start
 * from the page cache (bench/page-cache.ts). `npm run bench` (bench/run.ts) measures the same
 * starts and then the server under load.
 *
 * `--change N` edits N levels (their `item.json` replaced by a rename) before each warm start and
 * puts them back after: a start from a snapshot that a few items changed since, as after a pull.
 * Both the edit and its undoing change the items, so the figure holds run after run for as long
 * as the snapshot stays (a start stopped at its first list does not write a new one).
 */
import { readdir } from 'node:fs/promises'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { parseCount } from './generate-pack-tree.js'
import { log } from './output.js'
import {
    assertServerBuilt,
    readServerBenchOptions,
    type ServerBenchSettings,
    serverBenchOptions,
    failedMeasurement,
    measureStart,
    renderStartTable,
    type CacheState,
    type Launch,
    type StartMeasurement,
} from './shelf-process.js'
import { ensureTree } from './trees.js'
import { editLevel } from './level-edits.js'
import { readIntoPageCache } from './page-cache.js'

interface Options extends ServerBenchSettings {
    /** 0 stands for the example content. */
    sizes: number[]
    caches: CacheState[]
    launches: Launch[]
    /** Levels edited before a warm start. */
    changed: number
}

const USAGE =
    'usage: node --import tsx bench/startup.ts --levels example,1000,10000 [--seed S] [--cache cold,warm] [--launch node,npm] ' +
    '[--server dist/cli/main.js] [--shelf-args=FLAGS] [--change N] [--trees bench/out] [--timeout SECONDS] [--json]'

function parseCaches(text: string): CacheState[] {
    const caches = text.split(',').map((part) => part.trim())
    for (const cache of caches) {
        if (cache !== 'cold' && cache !== 'warm') throw new Error(`--cache: unknown ${cache}`)
    }
    return caches as CacheState[]
}

function parseLaunches(text: string): Launch[] {
    return text.split(',').map((part) => {
        const launch = part.trim()
        if (launch === 'node') return 'node'
        if (launch === 'npm') return 'npm start'
        throw new Error(`--launch: unknown ${launch} (node or npm)`)
    })
}

function parseOptions(argv: string[]): Options {
    const { values } = parseArgs({
        args: argv,
        options: {
            levels: { type: 'string', default: '1000,10000' },
            cache: { type: 'string', default: 'cold,warm' },
            launch: { type: 'string', default: 'node' },
            change: { type: 'string', default: '0' },
            ...serverBenchOptions,
        },
    })
    if (values.help) {
        console.log(USAGE)
        process.exit(0)
    }
    return {
        sizes: values.levels
            .split(',')
            .map((part) => (part.trim() === 'example' ? 0 : parseCount('--levels', part.trim()))),
        caches: parseCaches(values.cache),
        launches: parseLaunches(values.launch),
        changed: values.change === '0' ? 0 : parseCount('--change', values.change),
        ...readServerBenchOptions(values),
    }
}

/** Edits `count` levels spread over the tree; answers how to put each back. */
async function editLevels(dir: string, count: number) {
    const names = (await readdir(join(dir, 'levels'))).sort()
    const undo = []
    for (let index = 0; index < count; index++) {
        const name = names[Math.floor((names.length * index) / count)]!
        undo.push(await editLevel(dir, name, 'bench/startup.ts'))
    }
    log(`edited ${count} levels before the start`)
    return undo
}

async function main(): Promise<void> {
    const options = parseOptions(process.argv.slice(2))
    assertServerBuilt(options.server)
    const rows: StartMeasurement[] = []
    for (const levels of options.sizes) {
        const contentDir =
            levels === 0 ? undefined : await ensureTree(options.treesDir, levels, options.seed)
        // The target is a start of a tree in the page cache; a dropped one is read from the disk.
        if (contentDir && options.caches.includes('cold')) readIntoPageCache(contentDir)
        for (const launch of options.launches) {
            for (const cache of options.caches) {
                log(
                    `starting Shelf by ${launch} on ${levels ? `${levels} levels` : 'the example content'} (${cache} cache) …`,
                )
                const undo =
                    cache === 'warm' && contentDir && options.changed
                        ? await editLevels(contentDir, options.changed)
                        : []
                const row = await measureStart(
                    { ...options, launch },
                    contentDir,
                    levels,
                    cache,
                ).catch((error: unknown) => ({
                    ...failedMeasurement(levels, cache, error),
                    launch,
                }))
                for (const putBack of undo) await putBack()
                rows.push(row)
            }
        }
    }
    console.log(options.json ? JSON.stringify(rows, null, 4) : renderStartTable(rows))
    if (rows.some((row) => row.error !== undefined)) process.exitCode = 1
}

main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error)
    process.exitCode = 1
})
