/**
 * `node --import tsx bench/hostile-content.ts [--cases a,b] [--json]`: how long Shelf takes, and
 * how much memory, to load a content file made to hurt it: huge maps, deep nesting, alias bombs,
 * many leaderboard records, long strings, bytes that are not UTF-8. Each case runs in a process
 * of its own (a copy of the example content plus the one hostile file), so that its peak memory
 * is its own. Two figures per case:
 *
 * - parse: the file's text through the record parser alone, past the size limit, so that a step
 *   that grows faster than the file shows as a number (the ms per 1,000 units column);
 * - load: the whole folder loaded as `shelf serve` loads it, with the limits, and what came of
 *   the hostile file: served, or the problem that refused it.
 *
 * The ceiling is what a file may cost the loader: one second, beyond the load of the example
 * content alone (the first case). Tables go to stdout.
 */
import { fork } from 'node:child_process'
import { mkdir, rm, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { formatCount, formatNumber, log, renderTable } from './output.js'

type HostileCase = { name: string; file: string; units: number; unit: string; bytes(): Buffer }

const post = (fields: string) =>
    Buffer.from(`---\ntitle: Hostile\ntime: 2026-01-01T00:00:00Z\n${fields}---\nBody.\n`)
const metaKeys = (count: number, duplicate = false) =>
    post(
        `meta:\n${Array.from({ length: count }, (_, index) => `  key${duplicate && index === count - 1 ? 0 : index}: ${index}\n`).join('')}`,
    )
const leaderboard = (count: number) =>
    Buffer.from(
        `title: Hostile\nrecords:\n${Array.from({ length: count }, (_, index) => `  - { player: Player ${index}, value: "${count - index}" }\n`).join('')}`,
    )
const aliasBomb = () => {
    const lines = [
        'title: Bomb',
        'time: 2026-01-01T00:00:00Z',
        'a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]',
    ]
    for (let level = 1; level <= 9; level++)
        lines.push(
            `a${level}: &a${level} [${Array.from({ length: 9 }, () => `*a${level - 1}`).join(', ')}]`,
        )
    return Buffer.from(`${lines.join('\n')}\nmeta: { bomb: *a9 }\n`)
}

const cases: HostileCase[] = [
    {
        name: 'none: the example content alone',
        file: 'posts/welcome.md',
        units: 1,
        unit: 'files',
        bytes: () => Buffer.from('---\ntitle: Welcome\ntime: 2026-01-01T00:00:00Z\n---\nHello.\n'),
    },
    {
        name: 'front matter, 25,000 meta keys',
        file: 'posts/hostile/item.md',
        units: 25_000,
        unit: 'keys',
        bytes: () => metaKeys(25_000),
    },
    {
        name: 'front matter, 200,000 meta keys',
        file: 'posts/hostile/item.md',
        units: 200_000,
        unit: 'keys',
        bytes: () => metaKeys(200_000),
    },
    {
        name: 'front matter, 25,000 keys, last one twice',
        file: 'posts/hostile/item.md',
        units: 25_000,
        unit: 'keys',
        bytes: () => metaKeys(25_000, true),
    },
    {
        name: 'leaderboard, 100,000 records',
        file: 'levels/first-steps/leaderboards/hostile.yaml',
        units: 100_000,
        unit: 'records',
        bytes: () => leaderboard(100_000),
    },
    {
        name: 'leaderboard, 300,000 records',
        file: 'levels/first-steps/leaderboards/hostile.yaml',
        units: 300_000,
        unit: 'records',
        bytes: () => leaderboard(300_000),
    },
    {
        name: 'YAML nested 10,000 deep (flow)',
        file: 'posts/hostile/item.yaml',
        units: 10_000,
        unit: 'levels',
        bytes: () =>
            Buffer.from(
                `title: Deep\ntime: 2026-01-01T00:00:00Z\nmeta: { deep: ${'['.repeat(10_000)}${']'.repeat(10_000)} }\n`,
            ),
    },
    {
        name: 'JSON nested 100,000 deep',
        file: 'posts/hostile/item.json',
        units: 100_000,
        unit: 'levels',
        bytes: () =>
            Buffer.from(
                `{"title":"Deep","time":"2026-01-01T00:00:00Z","meta":{"deep":${'['.repeat(100_000)}${']'.repeat(100_000)}}}`,
            ),
    },
    {
        name: 'alias bomb (9^10 nodes)',
        file: 'posts/hostile/item.yaml',
        units: 1,
        unit: 'files',
        bytes: aliasBomb,
    },
    {
        name: 'title of 500,000 characters',
        file: 'posts/hostile/item.yaml',
        units: 500,
        unit: 'KB',
        bytes: () => Buffer.from(`title: "${'x'.repeat(500_000)}"\ntime: 2026-01-01T00:00:00Z\n`),
    },
    {
        name: 'title of 1,000,000 characters',
        file: 'posts/hostile/item.yaml',
        units: 1_000,
        unit: 'KB',
        bytes: () => Buffer.from(`title: "${'x'.repeat(1_000_000)}"\ntime: 2026-01-01T00:00:00Z\n`),
    },
    {
        name: 'description of 500,000 characters',
        file: 'posts/hostile/item.md',
        units: 500,
        unit: 'KB',
        bytes: () =>
            Buffer.from(
                `---\ntitle: Long\ntime: 2026-01-01T00:00:00Z\n---\n${'y'.repeat(500_000)}\n`,
            ),
    },
    {
        name: '500 KB, one byte not UTF-8 at the end',
        file: 'posts/hostile/item.yaml',
        units: 500,
        unit: 'KB',
        bytes: () =>
            Buffer.concat([
                Buffer.from(
                    `title: Bytes\ntime: 2026-01-01T00:00:00Z\n${'# padding\n'.repeat(50_000)}`,
                ),
                Buffer.from([0x74, 0x3a, 0x20, 0xff, 0x0a]),
            ]),
    },
]

const ceilingMs = 1_000

type Measurement = {
    name: string
    bytes: number
    units: number
    unit: string
    parseMs: number | null
    parseOutcome: string
    loadMs: number
    peakMiB: number
    outcome: string
}

/** In the child: one case, measured. */
const measure = async (hostile: HostileCase): Promise<Measurement> => {
    const { copyContent } = await import('../test/support/server.js')
    const { parseRecordFile } = await import('../src/content/parse-file.js')
    const { loadCatalog } = await import('../src/server.js')
    const { formatProblem } = await import('../src/content/problems.js')
    const content = await copyContent()
    const cache = join(content, '.shelf')
    try {
        const bytes = hostile.bytes()
        await mkdir(dirname(join(content, hostile.file)), { recursive: true })
        await writeFile(join(content, hostile.file), bytes)
        let parseMs: number | null = null
        let parseOutcome = 'parsed'
        const parseStart = performance.now()
        try {
            void parseRecordFile(hostile.file, bytes.toString('utf8')).data
        } catch (error) {
            parseOutcome = (error as Error).message.slice(0, 80)
        }
        parseMs = performance.now() - parseStart
        const loadStart = performance.now()
        const catalog = await loadCatalog({ content, name: 'service', drafts: false, cache })
        const loadMs = performance.now() - loadStart
        const problems = catalog.problems.filter(
            (problem) =>
                problem.file.startsWith(dirname(hostile.file)) || problem.file === hostile.file,
        )
        const served = hostile.file.startsWith('posts/')
            ? catalog.get('post', hostile.file.split('/')[1]!.replace(/\.md$/, '')) !== undefined
            : catalog
                  .get('level', 'first-steps')
                  ?.leaderboards.some((board) => board.name === 'hostile')
        const outcome = problems.length
            ? formatProblem(problems[0]!)
            : served
              ? 'served'
              : 'not served, no problem'
        return {
            name: hostile.name,
            bytes: bytes.length,
            units: hostile.units,
            unit: hostile.unit,
            parseMs,
            parseOutcome,
            loadMs,
            peakMiB: process.resourceUsage().maxRSS / 1024,
            outcome,
        }
    } finally {
        await rm(content, { recursive: true, force: true })
    }
}

const runChild = (name: string) =>
    new Promise<Measurement>((resolve, reject) => {
        const child = fork(fileURLToPath(import.meta.url), ['--child', name], {
            execArgv: ['--import', 'tsx'],
            stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
        })
        child.once('message', (message) => resolve(message as Measurement))
        child.once('exit', (code) =>
            code === 0 ? undefined : reject(new Error(`case "${name}" exited ${code}`)),
        )
    })

const { values } = parseArgs({
    options: { child: { type: 'string' }, cases: { type: 'string' }, json: { type: 'boolean' } },
})

if (values.child) {
    const hostile = cases.find((candidate) => candidate.name === values.child)!
    process.send!(await measure(hostile))
    process.disconnect()
} else {
    const chosen = values.cases
        ? cases.filter((candidate) =>
              values.cases!.split(',').some((part) => candidate.name.includes(part)),
          )
        : cases
    const results: Measurement[] = []
    for (const hostile of chosen) {
        log(`${hostile.name}…`)
        results.push(
            await runChild(hostile.name).catch((error: Error) => ({
                name: hostile.name,
                bytes: 0,
                units: hostile.units,
                unit: hostile.unit,
                parseMs: null,
                parseOutcome: error.message,
                loadMs: NaN,
                peakMiB: NaN,
                outcome: error.message,
            })),
        )
    }
    // The first case loads the example content alone; the others are compared with it.
    const alone = results.find((result) => result.name === cases[0]!.name)?.loadMs ?? 0
    if (values.json) console.log(JSON.stringify(results, null, 2))
    else {
        console.log(
            renderTable(
                [
                    'case',
                    'MB',
                    'parse ms',
                    'ms per 1,000',
                    'load ms',
                    'beyond alone',
                    'to ceiling',
                    'peak MiB',
                    'outcome',
                ],
                results.map((result) => [
                    result.name,
                    formatNumber(result.bytes / 1e6, 1),
                    formatNumber(result.parseMs, 0),
                    formatNumber(
                        result.parseMs === null || result.units < 1000
                            ? null
                            : (result.parseMs / result.units) * 1000,
                        2,
                    ),
                    formatNumber(result.loadMs, 0),
                    formatNumber(result.loadMs - alone, 0),
                    formatNumber((result.loadMs - alone) / ceilingMs, 2),
                    formatCount(result.peakMiB),
                    result.outcome,
                ]),
                [0, 8],
            ),
        )
        console.log(
            `\nparse: the parser alone, past the size limit (${
                results
                    .map((result) => `${result.name}: ${result.parseOutcome}`)
                    .filter((line) => !line.endsWith('parsed'))
                    .join('; ') || 'all parsed'
            })`,
        )
        console.log(
            `load: the example content plus the file, as shelf serve loads it; ceiling ${ceilingMs} ms`,
        )
    }
}
