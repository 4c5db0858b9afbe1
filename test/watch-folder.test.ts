/**
 * The watcher on its own: what changes between the reading of a folder and the start of its
 * watches is handed over by the first scan, and nothing else is.
 */
import fs from 'node:fs'
import { mkdir, rm, utimes, writeFile } from 'node:fs/promises'
import { syncBuiltinESMExports } from 'node:module'
import { join } from 'node:path'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { watchFolder } from '../src/watch/watch-folder.js'
import { writeTree } from './support/fixtures.js'
import { temporaryFolder } from './support/server.js'

const test = suite('watch folder')

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Level folders enough for the levels folder's listing to outgrow a block: the first scan hands it to its worker. */
const manyLevels = Object.fromEntries(
    Array.from({ length: 300 }, (_, index) => [`levels/level-${index}/item.yaml`, 'title: Kept\n']),
)

for (const [what, others] of [
    ['a few folders', {}],
    ['a folder listed by the worker', manyLevels],
] as const)
    test(`${what}: a change made after the folder was read and before it was watched is handed over once the watcher is ready`, async () => {
        const root = await temporaryFolder()
        try {
            await writeTree(root, {
                ...others,
                'levels/kept/item.yaml': 'title: Kept\n',
                'levels/edited/item.yaml': 'title: Before\n',
                'skins/plain/item.yaml': 'title: Plain\n',
            })
            // Past the watcher's allowance for a coarse file system clock: these files are as read.
            await sleep(250)
            const readSince = Date.now()
            await writeFile(join(root, 'levels/edited/item.yaml'), 'title: After\n')
            await writeTree(root, { 'levels/added/item.yaml': 'title: Added\n' })
            // A file moved into place keeps its old modification time; its change time is new.
            const old = new Date(readSince - 60_000)
            await utimes(join(root, 'levels/added/item.yaml'), old, old)

            const batches: string[][] = []
            const watcher = watchFolder(root, async (paths) => void batches.push(paths), {
                readSince,
            })
            await watcher.ready
            await watcher.close()
            const handed = new Set(batches.flat())
            assert.ok(
                handed.has('levels/edited/item.yaml'),
                `the edited record is handed over: ${[...handed].join(', ')}`,
            )
            assert.ok(handed.has('levels/added/item.yaml'), 'the added record is handed over')
            assert.not.ok(
                [...handed].some(
                    (path) =>
                        path.startsWith('levels/kept') ||
                        path.startsWith('levels/level-') ||
                        path.startsWith('skins'),
                ),
                `nothing untouched is: ${[...handed].join(', ')}`,
            )
        } finally {
            await rm(root, { recursive: true, force: true })
        }
    })

test('without a change since the reading, the first scan hands over nothing', async () => {
    const root = await temporaryFolder()
    try {
        await writeTree(root, {
            'levels/kept/item.yaml': 'title: Kept\n',
            'levels/kept/.item.yaml.swp': 'swap',
        })
        await sleep(250)
        const batches: string[][] = []
        const watcher = watchFolder(root, async (paths) => void batches.push(paths), {
            readSince: Date.now(),
        })
        await watcher.ready
        await watcher.close()
        assert.equal(batches, [])
    } finally {
        await rm(root, { recursive: true, force: true })
    }
})

/** Collects the watcher's batches and waits for one that names `path`. */
const recorder = () => {
    const batches: string[][] = []
    const waiting: { path: string; resolve: () => void }[] = []
    return {
        batches,
        onBatch: async (paths: string[]) => {
            batches.push(paths)
            for (const wait of waiting.filter((entry) => paths.includes(entry.path))) wait.resolve()
        },
        handed: (path: string, timeoutMs = 5000) =>
            new Promise<void>((resolve, reject) => {
                if (batches.some((batch) => batch.includes(path))) return resolve()
                const timer = setTimeout(
                    () =>
                        reject(
                            new Error(
                                `${path} was not handed over within ${timeoutMs} ms: ${JSON.stringify(batches)}`,
                            ),
                        ),
                    timeoutMs,
                )
                waiting.push({ path, resolve: () => (clearTimeout(timer), resolve()) })
            }),
    }
}

/**
 * Runs `body` with a watcher, ready, on a new folder holding `tree` (written 250 ms before the
 * watcher starts, past its allowance for a coarse clock, so nothing in it counts as changed);
 * the watcher is closed and the folder removed after.
 */
const watching = async (
    tree: Record<string, string>,
    body: (root: string, handed: (path: string) => Promise<void>) => Promise<void>,
) => {
    const root = await temporaryFolder()
    try {
        await writeTree(root, tree)
        await sleep(250)
        const { onBatch, handed } = recorder()
        const watcher = watchFolder(root, onBatch, { readSince: Date.now() })
        try {
            await watcher.ready
            await body(root, handed)
        } finally {
            await watcher.close()
        }
    } finally {
        await rm(root, { recursive: true, force: true })
    }
}

test('folders are watched a few at a time: with hundreds of folders, the first and the last one listed report their changes', async () => {
    const files: Record<string, string> = {}
    for (let index = 0; index < 700; index++)
        files[`levels/level-${index}/item.yaml`] = `title: Level ${index}\n`
    files['levels/level-699/comments/first.md'] = 'Hello\n'
    await watching(files, async (root, handed) => {
        for (const path of [
            'levels/level-0/item.yaml',
            'levels/level-699/item.yaml',
            'levels/level-699/comments/first.md',
        ]) {
            await writeFile(join(root, path), 'title: Changed\n')
            await handed(path)
        }
    })
})

/** Where the watches below the root run: here for a small catalog, on their worker for a large one. */
const whereWatched = [
    ['watched here', {}],
    ['watched by the worker', manyLevels],
] as const

for (const [what, others] of whereWatched) {
    test(`${what}: a folder removed and made again under its name (with a folder inside) is watched again`, async () => {
        await watching(
            {
                ...others,
                'levels/again/item.yaml': 'title: First\n',
                'levels/again/comments/one.md': 'One\n',
            },
            async (root, handed) => {
                await rm(join(root, 'levels/again'), { recursive: true })
                await handed('levels/again')
                // Give the watcher its moment to see the folder gone before it comes back.
                await sleep(100)
                await mkdir(join(root, 'levels/again/comments'), { recursive: true })
                await writeFile(join(root, 'levels/again/item.yaml'), 'title: Second\n')
                await handed('levels/again/item.yaml')
                await sleep(100)
                await writeFile(join(root, 'levels/again/comments/two.md'), 'Two\n')
                await handed('levels/again/comments/two.md')
            },
        )
    })

    test(`${what}: a folder made after the scan with a folder inside: the inner folder still reports its changes once the outer one changed`, async () => {
        await watching(
            { ...others, 'levels/kept/item.yaml': 'title: Kept\n' },
            async (root, handed) => {
                await mkdir(join(root, 'levels/new/comments'), { recursive: true })
                await handed('levels/new/comments')
                await sleep(100)
                await writeFile(join(root, 'levels/new/item.yaml'), 'title: New\n')
                await handed('levels/new/item.yaml')
                await sleep(100)
                await writeFile(join(root, 'levels/new/comments/one.md'), 'One\n')
                await handed('levels/new/comments/one.md')
            },
        )
    })

    test(`${what}: folders made at once several levels deep (mkdir -p): a file saved in the deepest is handed over, and a later save there too`, async () => {
        await watching(
            { ...others, 'levels/kept/item.yaml': 'title: Kept\n' },
            async (root, handed) => {
                const deep = join(root, 'levels/kept/extra/one/two')
                await mkdir(deep, { recursive: true })
                await writeFile(join(deep, 'first.md'), 'First\n')
                await handed('levels/kept/extra/one/two/first.md')
                await writeFile(join(deep, 'second.md'), 'Second\n')
                await handed('levels/kept/extra/one/two/second.md')
            },
        )
    })

    test(`${what}: a folder removed and made again in the same moment (a checkout) is watched again: a later save in it is handed over`, async () => {
        await watching(
            {
                ...others,
                'levels/again/item.yaml': 'title: First\n',
                'levels/again/comments/one.md': 'One\n',
            },
            async (root, handed) => {
                // All before the watcher hears of any of it: its events find a folder under the name.
                fs.rmSync(join(root, 'levels/again'), { recursive: true })
                fs.mkdirSync(join(root, 'levels/again/comments'), { recursive: true })
                fs.writeFileSync(join(root, 'levels/again/item.yaml'), 'title: Second\n')
                // Not reported by any watch: found by the listing of the folder watched again.
                await handed('levels/again/item.yaml')
                await writeFile(join(root, 'levels/again/comments/two.md'), 'Two\n')
                await handed('levels/again/comments/two.md')
                await writeFile(join(root, 'levels/again/data.json'), '{}\n')
                await handed('levels/again/data.json')
            },
        )
    })

    test(`${what}: a type folder made after the scan is watched: a save in it is handed over`, async () => {
        await watching(
            { ...others, 'levels/kept/item.yaml': 'title: Kept\n' },
            async (root, handed) => {
                await mkdir(join(root, 'skins/fresh'), { recursive: true })
                await handed('skins')
                await sleep(100)
                await writeFile(join(root, 'skins/fresh/item.yaml'), 'title: Fresh\n')
                await handed('skins/fresh/item.yaml')
            },
        )
    })

    test(`${what}: a file saved while the first scan runs is handed over once the watcher is ready`, async () => {
        const root = await temporaryFolder()
        try {
            await writeTree(root, { ...others, 'levels/last/item.yaml': 'title: Before\n' })
            await sleep(250)
            const { batches, onBatch } = recorder()
            const watcher = watchFolder(root, onBatch, { readSince: Date.now() })
            try {
                // Before the watcher can have watched or listed it: the scan or the folder's watch must say so.
                await writeFile(join(root, 'levels/last/item.yaml'), 'title: During\n')
                await watcher.ready
                assert.ok(
                    batches.flat().includes('levels/last/item.yaml'),
                    `handed over: ${JSON.stringify(batches)}`,
                )
            } finally {
                await watcher.close()
            }
        } finally {
            await rm(root, { recursive: true, force: true })
        }
    })
}

test('a folder that cannot be watched (the system limit of watches) is reported once; the first scan still finishes and the other folders report their changes', async () => {
    const realWatch = fs.watch
    const realError = console.error
    const said: string[] = []
    // The watcher calls node:fs's watch through the module's exports, which this swaps for one that fails on two folders.
    fs.watch = ((path: string, ...rest: unknown[]) => {
        if (/level-(3|4)$/.test(path))
            throw Object.assign(
                new Error(
                    `ENOSPC: System limit for number of file watchers reached, watch '${path}'`,
                ),
                { code: 'ENOSPC' },
            )
        return (realWatch as (...args: unknown[]) => fs.FSWatcher)(path, ...rest)
    }) as typeof fs.watch
    syncBuiltinESMExports()
    console.error = (...args: unknown[]) => void said.push(args.join(' '))
    try {
        const files: Record<string, string> = {}
        for (let index = 0; index < 20; index++)
            files[`levels/level-${index}/item.yaml`] = `title: Level ${index}\n`
        await watching(files, async (root, handed) => {
            assert.equal(said.length, 1, said.join('\n'))
            assert.match(said[0]!, /limit of file watchers/)
            await writeFile(join(root, 'levels/level-19/item.yaml'), 'title: Changed\n')
            await handed('levels/level-19/item.yaml')
        })
    } finally {
        fs.watch = realWatch
        syncBuiltinESMExports()
        console.error = realError
    }
})

test.run()
