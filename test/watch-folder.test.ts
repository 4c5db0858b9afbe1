/**
 * The watcher on its own: what changes between the reading of a folder and the start of its
 * watches is handed over by the first scan, and nothing else is.
 */
import { rm, utimes, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { watchFolder } from '../src/watch/watch-folder.js'
import { writeTree } from './support/fixtures.js'
import { temporaryFolder } from './support/server.js'

const test = suite('watch folder')

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

test('a change made after the folder was read and before it was watched is handed over once the watcher is ready', async () => {
    const root = await temporaryFolder()
    try {
        await writeTree(root, {
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
        const watcher = watchFolder(root, async (paths) => void batches.push(paths), { readSince })
        await watcher.ready
        await watcher.close()
        const handed = new Set(batches.flat())
        assert.ok(handed.has('levels/edited/item.yaml'), `the edited record is handed over: ${[...handed].join(', ')}`)
        assert.ok(handed.has('levels/added/item.yaml'), 'the added record is handed over')
        assert.not.ok([...handed].some((path) => path.startsWith('levels/kept') || path.startsWith('skins')), `nothing untouched is: ${[...handed].join(', ')}`)
    } finally {
        await rm(root, { recursive: true, force: true })
    }
})

test('without a change since the reading, the first scan hands over nothing', async () => {
    const root = await temporaryFolder()
    try {
        await writeTree(root, { 'levels/kept/item.yaml': 'title: Kept\n', 'levels/kept/.item.yaml.swp': 'swap' })
        await sleep(250)
        const batches: string[][] = []
        const watcher = watchFolder(root, async (paths) => void batches.push(paths), { readSince: Date.now() })
        await watcher.ready
        await watcher.close()
        assert.equal(batches, [])
    } finally {
        await rm(root, { recursive: true, force: true })
    }
})

test.run()
