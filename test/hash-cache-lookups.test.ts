/**
 * The hash cache looks up a few paths' entries in its file without reading the others, and its
 * save writes what it found in place of their lines, copying the others as they are: a path
 * with non-ASCII characters or a `"`, a deleted or renamed file, a save by another process in
 * between, and a file broken past its header.
 */
import { createHash } from 'node:crypto'
import { statSync, type Stats } from 'node:fs'
import { readFile, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { HashCache } from '../src/content/hash-cache.js'
import { temporaryFolder } from './support/server.js'

const served = (path: string) => ({
    hash: createHash('sha1').update(path).digest('hex'),
    path,
    contentType: 'image/png',
})
const always = () => true

/** Paths enough for a file of a few megabytes, which is looked in rather than read whole. */
const manyPaths = (root: string) =>
    Array.from({ length: 20_000 }, (_, index) =>
        join(root, 'levels', `level-${index}`, 'cover.png'),
    )

const odd = (root: string) => [
    join(root, 'levels', 'ナイト・ドライブ', 'cover.png'),
    join(root, 'levels', 'say "hi"', 'cover.png'),
    join(root, 'levels', 'back\\slash', 'cover.png'),
]

/** A cache file of `paths`, each with `info`, and a folder listing of `folder`. */
const written = async (file: string, paths: string[], info: Stats, folder: string) => {
    const cache = await HashCache.open(file)
    for (const path of paths) cache.remember(path, info, served(path))
    cache.rememberListing(folder, info, { files: ['item.json'], folders: [] }, info.ctimeMs + 5000)
    await cache.save()
    return cache
}

/** Runs `body` on a large cache file of `paths`, in a temporary folder removed after. */
const withLargeCache = async (
    body: (file: string, paths: string[], info: Stats, root: string) => Promise<void>,
) => {
    const root = await temporaryFolder()
    const file = join(root, '.shelf', 'hashes.json')
    try {
        const info = statSync(root)
        const paths = [...manyPaths(root), ...odd(root)]
        await written(file, paths, info, join(root, 'levels', 'say "hi"'))
        await body(file, paths, info, root)
    } finally {
        await rm(root, { recursive: true, force: true })
    }
}

const linesOf = async (file: string) => (await readFile(file, 'utf8')).trimEnd().split('\n')

test('a few paths are found in a large cache, and its save keeps every other line as it was', async () =>
    withLargeCache(async (file, paths, info, root) => {
        const before = await linesOf(file)
        assert.ok(statSync(file).size > 2 * 1024 * 1024, 'large enough to be looked in')

        const cache = await HashCache.open(file)
        await cache.loaded()
        for (const path of [...odd(root), paths[0]!, paths[19_999]!])
            assert.equal(cache.lookup(path, info, always), served(path), path)
        assert.equal(cache.lookupListing(join(root, 'levels', 'say "hi"'), info), {
            files: ['item.json'],
            folders: [],
        })
        assert.is(cache.lookup(join(root, 'never.png'), info, always), undefined)
        // One changed, one renamed (a new path; the old one's line stays until a start reads every folder).
        const changed = { ...info, size: info.size + 1 } as Stats
        assert.is(cache.lookup(paths[5]!, changed, always), undefined, 'another size')
        cache.remember(paths[5]!, changed, served(`${paths[5]}!`))
        const renamed = join(root, 'levels', 'level-renamed', 'cover.png')
        cache.remember(renamed, info, served(renamed))
        await cache.save()

        const after = await linesOf(file)
        assert.is(
            after.length,
            before.length + 1,
            'the renamed path added, the changed one replaced',
        )
        const untouched = new Set(after)
        assert.ok(
            before.every(
                (line) => untouched.has(line) || line.startsWith(`[${JSON.stringify(paths[5])}`),
            ),
            'every other line copied as it was',
        )
        const next = await HashCache.open(file)
        assert.equal(next.lookup(paths[5]!, changed, always), served(`${paths[5]}!`))
        assert.equal(next.lookup(renamed, info, always), served(renamed))
        for (const path of paths.filter((_, index) => index !== 5))
            assert.equal(next.lookup(path, info, always), served(path), path)
    }))

test('a save merges into the file as another process left it: neither loses what the other found', async () =>
    withLargeCache(async (file, paths, info, root) => {
        const server = await HashCache.open(file)
        const exporter = await HashCache.open(file)
        assert.equal(server.lookup(paths[1]!, info, always), served(paths[1]!))
        const [first, second] = ['ファースト "1"', 'second'].map((name) =>
            join(root, name, 'cover.png'),
        )
        exporter.remember(first!, info, served(first!))
        await exporter.save()
        server.remember(second!, info, served(second!))
        await server.save()

        const next = await HashCache.open(file)
        for (const path of [...paths, first!, second!])
            assert.equal(next.lookup(path, info, always), served(path), path)
    }))

test('a cache broken past its header finds nothing, and its save writes what was found anew', async () =>
    withLargeCache(async (file, paths, info) => {
        const text = await readFile(file, 'utf8')
        const middle = text.indexOf('\n', text.length / 2)
        await writeFile(file, `${text.slice(0, middle)}\n[cut, not JSON\n${text.slice(middle + 1)}`)
        const cache = await HashCache.open(file)
        // Whichever probe lands on the broken line: no throw, at worst a miss.
        for (const path of paths.slice(0, 50)) cache.lookup(path, info, always)
        cache.remember(paths[0]!, info, served(paths[0]!))
        await cache.save()
        const next = await HashCache.open(file)
        assert.equal(next.lookup(paths[0]!, info, always), served(paths[0]!))
    }))

test('a cache of version 4 (lines not in order) is read whole and written in order', async () =>
    withLargeCache(async (file, paths, info) => {
        const [, ...entries] = await linesOf(file)
        await writeFile(file, `{"version":4}\n${entries.reverse().join('\n')}\n`)
        const old = await HashCache.open(file)
        await old.loaded()
        assert.equal(old.lookup(paths[3]!, info, always), served(paths[3]!))
        // As after a start from the snapshot, which looked at a few.
        old.keepUnseen()
        await old.save()
        assert.equal(JSON.parse((await linesOf(file))[0]!), { version: 5 })
        const next = await HashCache.open(file)
        for (const path of paths) assert.equal(next.lookup(path, info, always), served(path), path)
    }))

test.run()
