/**
 * `shelf export` on generated pack trees: time and peak memory of a first export (every
 * resource hashed and every answer written), of a second one with nothing changed, and of one
 * after editing one level's title, with what each wrote.
 *
 *   npm run build && node --import tsx bench/export.ts [--levels 10000,100000] [--trees DIR]
 *
 * Peak memory is the kernel's high-water mark of the export process (GNU time's %M); CPU seconds
 * (user + system) say more than the wall clock on a busy machine.
 */
import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { DEFAULT_SEED } from './generate-pack-tree.js'
import { formatNumber, log, renderTable } from './output.js'
import { assertServerBuilt, DEFAULT_SERVER } from './shelf-process.js'
import { DEFAULT_TREES_DIR, ensureTree } from './trees.js'

const gnuTime = '/usr/bin/time'

type Run = { seconds: number; cpuSeconds: number; peakMiB: number; summary: string }

/** One `shelf export` under GNU time; its last line is the export's own summary. */
const exportOnce = (tree: string, out: string) =>
    new Promise<Run>((resolve, reject) => {
        const args = [
            '-f',
            '%e %U %S %M',
            process.execPath,
            DEFAULT_SERVER,
            'export',
            out,
            '--address',
            'https://static.example',
            '--content',
            tree,
            '--name',
            'sonolus',
        ]
        const child = spawn(gnuTime, args, { stdio: ['ignore', 'pipe', 'pipe'] })
        let stdout = ''
        let stderr = ''
        child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk))
        child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
        child.once('error', reject)
        child.once('close', (code) => {
            const measured = /([\d.]+) ([\d.]+) ([\d.]+) (\d+)\s*$/.exec(stderr)
            if (code !== 0 || !measured)
                return reject(
                    new Error(
                        `shelf export exited ${code}\n${stdout.slice(-2000)}\n${stderr.slice(-2000)}`,
                    ),
                )
            resolve({
                seconds: Number(measured[1]),
                cpuSeconds: Number(measured[2]) + Number(measured[3]),
                peakMiB: Number(measured[4]) / 1024,
                summary: stdout.trim().split('\n').at(-1) ?? '',
            })
        })
    })

const main = async () => {
    const { values } = parseArgs({
        options: {
            levels: { type: 'string', default: '10000,100000' },
            trees: { type: 'string', default: DEFAULT_TREES_DIR },
        },
    })
    assertServerBuilt(DEFAULT_SERVER)
    if (!existsSync(gnuTime))
        throw new Error(`${gnuTime} (GNU time) measures the peak memory: apt-get install time`)
    const rows: string[][] = []
    for (const levels of values.levels.split(',').map(Number)) {
        const tree = await ensureTree(values.trees, levels, DEFAULT_SEED)
        const out = await mkdtemp(join(tmpdir(), 'shelf-export-bench-'))
        // The edit changes one level's title, then is undone, so the cached tree stays as generated.
        const record = join(
            tree,
            'levels',
            (await readdir(join(tree, 'levels'))).sort().find((name) => !name.startsWith('_'))!,
            'item.json',
        )
        const original = await readFile(record, 'utf8')
        try {
            for (const [run, prepare] of [
                ['first', async () => {}],
                ['again, nothing changed', async () => {}],
                [
                    'after one edit',
                    () =>
                        writeFile(
                            record,
                            original.replace('"en": "Level ', '"en": "Edited level '),
                        ),
                ],
            ] as const) {
                await prepare()
                log(`${levels} levels: export ${run} …`)
                const measured = await exportOnce(tree, out)
                log(`  ${measured.summary}`)
                const written =
                    /: (\d+) written \(([\d.]+) MiB\), (\d+) unchanged, (\d+) removed/.exec(
                        measured.summary,
                    )
                rows.push([
                    String(levels),
                    run,
                    formatNumber(measured.seconds, 1),
                    formatNumber(measured.cpuSeconds, 1),
                    formatNumber(measured.peakMiB, 0),
                    written?.[1] ?? '?',
                    written?.[2] ?? '?',
                    written?.[4] ?? '?',
                ])
            }
        } finally {
            await writeFile(record, original)
            await rm(out, { recursive: true, force: true })
        }
    }
    console.log(
        renderTable(
            [
                'levels',
                'export',
                'seconds',
                'CPU seconds',
                'peak MiB',
                'files written',
                'MiB written',
                'removed',
            ],
            rows,
            [1],
        ),
    )
}

main().catch((error: unknown) => {
    console.error(error)
    process.exitCode = 1
})
