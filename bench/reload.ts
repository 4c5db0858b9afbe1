/**
 * Reload latency: how long from writing a level's record to the API showing the change, with
 * Shelf watching a generated pack tree. Each edit changes one level's title; the level's details
 * are polled until the new title appears. The record is put back as it was at the end.
 *
 *   node --import tsx bench/reload.ts --levels 1000,100000 [--edits 30] [--seed 1] [--server dist/cli/main.js]
 *                                     [--shelf-args=FLAGS]
 */
import { readFile, writeFile } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { parseCount } from './generate-pack-tree.js'
import { formatNumber, log, renderTable } from './output.js'
import { DEFAULT_SERVER, getJson, startServer, stopServer } from './shelf-process.js'
import { DEFAULT_TREES_DIR, ensureTree } from './trees.js'

/** Well past the watcher's batching, so every edit is a reload of its own. */
const pauseBetweenEditsMs = 150
const pollEveryMs = 1
const giveUpAfterMs = 10_000

const { values } = parseArgs({
    options: {
        levels: { type: 'string', default: '1000,100000' },
        edits: { type: 'string', default: '30' },
        seed: { type: 'string', default: '1' },
        server: { type: 'string', default: DEFAULT_SERVER },
        'shelf-args': { type: 'string', default: '' },
    },
})
const sizes = values.levels.split(',').map((size) => parseCount('--levels', size))
const edits = parseCount('--edits', values.edits)
const seed = parseCount('--seed', values.seed)
const server = resolve(values.server)
const serveArgs = values['shelf-args'].split(/\s+/).filter(Boolean)

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

const titleOf = async (url: string) =>
    ((await getJson(url)) as { item: { title: string } }).item.title

/** Writes the record with a new title and waits until the details answer with it. */
const timeOneEdit = async (
    recordPath: string,
    record: Record<string, unknown>,
    detailsUrl: string,
    title: string,
) => {
    const written = performance.now()
    await writeFile(recordPath, JSON.stringify({ ...record, title: { en: title } }))
    while ((await titleOf(detailsUrl)) !== title) {
        if (performance.now() - written > giveUpAfterMs)
            throw new Error(`"${title}" did not show within ${giveUpAfterMs / 1000} s`)
        await sleep(pollEveryMs)
    }
    return performance.now() - written
}

const percentile = (sorted: number[], fraction: number) =>
    sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)] ?? NaN

const measure = async (levels: number) => {
    const tree = await ensureTree(DEFAULT_TREES_DIR, levels, seed)
    log(`starting Shelf on ${levels} levels, watching …`)
    const shelf = await startServer({ server, timeoutMs: 600_000, serveArgs }, tree)
    try {
        const list = (await getJson(`${shelf.url}/service/levels/list`)) as {
            items: { name: string }[]
        }
        const name = list.items[0]!.name
        const recordPath = join(tree, 'levels', name, 'item.json')
        const original = await readFile(recordPath, 'utf8')
        const record = JSON.parse(original) as Record<string, unknown>
        const detailsUrl = `${shelf.url}/service/levels/${name}`
        const latencies: number[] = []
        try {
            for (let edit = 1; edit <= edits; edit++) {
                latencies.push(
                    await timeOneEdit(recordPath, record, detailsUrl, `Reload probe ${edit}`),
                )
                await sleep(pauseBetweenEditsMs)
            }
        } finally {
            await writeFile(recordPath, original)
        }
        const sorted = [...latencies].sort((a, b) => a - b)
        return {
            levels,
            edits,
            median: percentile(sorted, 0.5),
            p95: percentile(sorted, 0.95),
            max: sorted.at(-1) ?? NaN,
        }
    } finally {
        await stopServer(shelf.child)
    }
}

const rows = []
for (const levels of sizes) rows.push(await measure(levels))
console.log(
    renderTable(
        ['levels', 'edits', 'median ms', 'p95 ms', 'max ms'],
        rows.map((row) => [
            String(row.levels),
            String(row.edits),
            formatNumber(row.median, 1),
            formatNumber(row.p95, 1),
            formatNumber(row.max, 1),
        ]),
        [],
    ),
)
