/**
 * The folder watcher watches folders only, one watch each, and still sees every change of the
 * files in them: a file edited in place, a folder that appears with files in it, a folder
 * renamed (later edits are reported under its new name only), a folder removed.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { mkdir, rename, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { watchFolder, type FolderWatcher } from '../src/watch/watch-folder.js'
import { temporaryFolder } from './support/server.js'

const test = suite('perf: folder watcher')

let root: string
let watcher: FolderWatcher
const batches: string[][] = []
let waiting: ((paths: string[]) => void) | undefined
/** Watches of other suites' servers still open in this process, if any. */
let othersWatches = 0

/** Inotify watches of this process (Linux only): one line `inotify wd:…` per watch in the fdinfo of its inotify descriptor. */
const inotifyWatches = () => {
    let count = 0
    for (const fd of readdirSync('/proc/self/fdinfo')) {
        try {
            count += readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8').split('\n').filter((line) => line.startsWith('inotify wd:')).length
        } catch {
            // a descriptor closed meanwhile
        }
    }
    return count
}

test.before(async () => {
    root = await temporaryFolder('shelf-watch-')
    for (const name of ['a', 'b', 'c']) {
        await mkdir(join(root, 'levels', name, 'comments'), { recursive: true })
        for (const file of ['item.json', 'cover.png', 'bgm.mp3', 'data.json']) await writeFile(join(root, 'levels', name, file), name)
    }
    await mkdir(join(root, '.shelf', 'resources'), { recursive: true })
    if (process.platform === 'linux') othersWatches = inotifyWatches()
    watcher = watchFolder(root, async (paths) => {
        batches.push(paths)
        waiting?.(paths)
    })
    await watcher.ready
})

test.after(async () => {
    await watcher?.close()
    if (root) await rm(root, { recursive: true, force: true })
})

/** The paths of the batches that follow `action`, once they name every path of `covers`. */
const after = async (covers: string[], action: () => Promise<unknown>) => {
    const seen = new Set<string>()
    const done = new Promise<Set<string>>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no batch named ${covers.filter((path) => !seen.has(path)).join(', ')}; saw ${[...seen].join(', ')}`)), 3000)
        waiting = (paths) => {
            for (const path of paths) seen.add(path)
            if (covers.every((path) => seen.has(path))) {
                clearTimeout(timer)
                resolve(seen)
            }
        }
    })
    await action()
    return done
}

test('one watch per folder, none per file, none in dot folders', () => {
    if (process.platform !== 'linux') return
    // The root, levels/, and levels/x and levels/x/comments for three levels.
    assert.is(inotifyWatches() - othersWatches, 8)
})

test('a file edited in place is reported', async () => {
    await after(['levels/a/item.json'], () => writeFile(join(root, 'levels/a/item.json'), 'edited'))
})

test('a folder that appears is reported with what it holds, and watched from then on', async () => {
    await after(['levels/d', 'levels/d/item.json', 'levels/d/comments/first.md'], async () => {
        await mkdir(join(root, 'levels/d/comments'), { recursive: true })
        await writeFile(join(root, 'levels/d/item.json'), 'd')
        await writeFile(join(root, 'levels/d/comments/first.md'), 'hi')
    })
    await after(['levels/d/comments/first.md'], () => writeFile(join(root, 'levels/d/comments/first.md'), 'edited'))
})

test('a renamed folder is reported under both names, and later edits under the new one only', async () => {
    await after(['levels/b', 'levels/renamed'], () => rename(join(root, 'levels/b'), join(root, 'levels/renamed')))
    const seen = await after(['levels/renamed/item.json'], () => writeFile(join(root, 'levels/renamed/item.json'), 'edited'))
    assert.not.ok([...seen].some((path) => path.startsWith('levels/b/')), [...seen].join(', '))
})

test('a removed folder is reported and no longer watched', async () => {
    await after(['levels/c'], () => rm(join(root, 'levels/c'), { recursive: true }))
    if (process.platform === 'linux') assert.is(inotifyWatches() - othersWatches, 8, 'c and its comments went; d and its comments came')
})

test('editor leftovers and dot folders never count', async () => {
    const seen = await after(['levels/a/data.json'], async () => {
        await writeFile(join(root, 'levels/a/.item.json.swp'), 'swap')
        await writeFile(join(root, '.shelf/resources/x'), 'cache')
        await writeFile(join(root, 'levels/a/data.json'), 'edited')
    })
    assert.equal([...seen], ['levels/a/data.json'])
})

test.run()
