/**
 * A start takes the items unchanged since the last one from the snapshot in the state folder,
 * and sees every change made while the server was down exactly as a start without it: a record
 * edited in place at the same size with its modification time set back, a resource replaced,
 * a file added or removed, an item folder added, removed or renamed, the server's settings and a
 * type's defaults changed. A snapshot cut short, broken or of another build is ignored.
 */
import type { LevelItem, ServerItemDetails, ServerItemList } from '@sonolus/core'
import { createHash } from 'node:crypto'
import { cp, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { HashCache } from '../src/content/hash-cache.js'
import { racyMs } from '../src/content/start-snapshot.js'
import { startShelf, type RunningShelf } from '../src/server.js'
import { eventually } from './support/eventually.js'
import { exists, rewriteUnseen } from './support/fixtures.js'
import { copyContent, getJson, temporaryFolder } from './support/server.js'

const startServing = (content: string, cache: string, watch = false) =>
    startShelf(
        { content, cache, name: 'service', drafts: false, watch },
        { port: 0, host: '127.0.0.1' },
    )

/** A start once its catalog is verified: what changed while it was stopped is served from then on. */
const start = async (content: string, cache: string, watch = false) => {
    const shelf = await startServing(content, cache, watch)
    await shelf.checked
    return shelf
}

type Folder = { content: string; cache: string }

/**
 * A copy of the example whose first start wrote a snapshot. The snapshot trusts only files older
 * than its clock's granularity when read, so the start waits for the copy to be that old.
 */
const snapshotted = async (
    folderName?: string,
    edit?: (content: string) => Promise<void>,
): Promise<Folder> => {
    let content = await copyContent()
    await edit?.(content)
    if (folderName) {
        const named = join(await temporaryFolder(), folderName)
        await rename(content, named)
        content = named
    }
    const cache = await temporaryFolder('shelf-cache-')
    const copied = Date.now()
    await eventually(
        'the copy is older than the snapshot trusts',
        async () => Date.now() - copied > racyMs + 100,
    )
    const first = await start(content, cache)
    assert.is(first.fromSnapshot, 0, 'the first start has no snapshot')
    await first.snapshotSaved
    await first.close()
    assert.ok(await exists(join(cache, 'start-records.jsonl')), 'the snapshot is written')
    assert.ok(await exists(join(cache, 'start-checks.jsonl')))
    return { content, cache }
}

/** The catalog as served, for comparing two starts: every level's details and the problems. */
const served = async (shelf: RunningShelf) => {
    const list = await getJson<ServerItemList<LevelItem>>(`${shelf.url}/service/levels/list`)
    const details: Record<string, unknown> = {}
    for (const { name } of list.body.items) {
        const { body } = await getJson<ServerItemDetails<LevelItem>>(
            `${shelf.url}/service/levels/${name}`,
        )
        details[name] = body
    }
    const problems = shelf
        .catalog()
        .problems.map((problem) => `${problem.file}: ${problem.message}`)
        .sort()
    // Addresses carry the port, which differs between starts.
    return JSON.parse(JSON.stringify({ details, problems }).replaceAll(shelf.url, 'URL')) as {
        details: Record<string, ServerItemDetails<LevelItem>>
        problems: string[]
    }
}

/** Starts with the snapshot and without it (the state folder's copy without), answering both catalogs. */
const withAndWithout = async ({ content, cache }: Folder) => {
    const bare = await temporaryFolder('shelf-cache-')
    await cp(cache, bare, { recursive: true })
    await rm(join(bare, 'start-records.jsonl'))
    const shelf = await start(content, cache)
    const plain = await start(content, bare)
    try {
        assert.is(plain.fromSnapshot, 0)
        return {
            fromSnapshot: shelf.fromSnapshot,
            with: await served(shelf),
            without: await served(plain),
        }
    } finally {
        await shelf.close()
        await plain.close()
    }
}

test('an unchanged folder is taken from the snapshot and served as read', async () => {
    const folder = await snapshotted()
    const { fromSnapshot, with: taken, without } = await withAndWithout(folder)
    assert.ok(fromSnapshot >= 15, `${fromSnapshot} items taken`)
    assert.equal(taken, without)
    assert.ok(Object.keys(taken.details).includes('city-lights'))
})

test("the snapshot keeps each type's units in the order of its list, so that the next start's first catalog finds them sorted", async () => {
    // The newest level last by name, so that the lists' order is not the folder's.
    const { content, cache } = await snapshotted(undefined, async (content) => {
        const file = join(content, 'levels/thunder-road/item.json')
        const item = JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>
        await writeFile(file, JSON.stringify({ ...item, time: '2027-01-01T00:00:00Z' }))
    })
    const lines = (await readFile(join(cache, 'start-records.jsonl'), 'utf8')).trim().split('\n')
    const written = lines.slice(1).map((line) => (JSON.parse(line) as [string])[0])
    const shelf = await start(content, cache)
    try {
        for (const type of ['level', 'skin'] as const) {
            const listed = shelf
                .catalog()
                .listed[type].toArray()
                .map((item) => item.file.slice(0, item.file.lastIndexOf('/')))
            const inBoth = (keys: string[], other: string[]) =>
                keys.filter((key) => other.includes(key))
            const order = inBoth(written, listed)
            assert.ok(order.length >= 3, `${type}: ${order.length} units written and listed`)
            assert.equal(order, inBoth(listed, written), type)
        }
    } finally {
        await shelf.close()
    }
})

test('a start from the snapshot answers its first request, for a resource by hash, with its bytes', async () => {
    const { content, cache } = await snapshotted()
    const cover = await readFile(join(content, 'levels/city-lights/cover.png'))
    const hash = createHash('sha1').update(cover).digest('hex')
    const shelf = await start(content, cache)
    try {
        assert.ok(shelf.fromSnapshot >= 15)
        const response = await fetch(`${shelf.url}/service/repository/${hash}`)
        assert.is(response.status, 200)
        assert.ok(Buffer.from(await response.arrayBuffer()).equals(cover))
    } finally {
        await shelf.close()
    }
})

test('a record edited in place, at the same size and modification time, is read again', async () => {
    const folder = await snapshotted()
    const file = join(folder.content, 'levels/city-lights/item.yaml')
    await rewriteUnseen(file, (await readFile(file, 'utf8')).replace('City Lights', 'City Nights'))
    const { fromSnapshot, with: taken, without } = await withAndWithout(folder)
    assert.ok(fromSnapshot > 0)
    assert.is(taken.details['city-lights']!.item.title, 'City Nights')
    assert.equal(taken, without)
})

// The reading again waits for the turn after the start: checks that answer before it (a small
// folder is checked at once, a large one on a quiet machine may be) put no work before the line.
test('a start serves the snapshot at once, and what changed while it was stopped from its checks on', async () => {
    const folder = await snapshotted()
    const file = join(folder.content, 'levels/city-lights/item.yaml')
    await rewriteUnseen(file, (await readFile(file, 'utf8')).replace('City Lights', 'City Nights'))
    const shelf = await startServing(folder.content, folder.cache)
    const takenAtStart = shelf.fromSnapshot
    const reloads: string[][] = []
    shelf.events.on('reload', ({ paths }) => reloads.push(paths))
    try {
        const title = async () =>
            (await getJson<ServerItemDetails<LevelItem>>(`${shelf.url}/service/levels/city-lights`))
                .body.item.title
        assert.ok(['City Lights', 'City Nights'].includes(await title()), 'the old or the new')
        assert.is(await shelf.checked, 1, 'one item changed while stopped')
        assert.equal(reloads, [['levels/city-lights']], 'read again after the start resolved')
        assert.is(shelf.fromSnapshot, takenAtStart - 1, 'served from the snapshot until checked')
        assert.is(await title(), 'City Nights')
    } finally {
        await shelf.close()
    }
    // Its snapshot's save kept the item as read again.
    const next = await start(folder.content, folder.cache)
    try {
        assert.ok(next.fromSnapshot >= 15)
        assert.is((await served(next)).details['city-lights']!.item.title, 'City Nights')
    } finally {
        await next.close()
    }
})

test('a resource replaced at the same size and time is hashed again', async () => {
    const folder = await snapshotted()
    const file = join(folder.content, 'levels/city-lights/cover.png')
    const bytes = await readFile(file)
    bytes[bytes.length - 1]! ^= 0xff
    const { with: before } = await withAndWithout(folder)
    await rewriteUnseen(file, bytes)
    const { with: taken, without } = await withAndWithout(folder)
    assert.is.not(
        taken.details['city-lights']!.item.cover.hash,
        before.details['city-lights']!.item.cover.hash,
    )
    assert.equal(taken, without)
})

test('files and item folders added, removed and renamed while down are seen', async () => {
    const folder = await snapshotted()
    const levels = join(folder.content, 'levels')
    // A second record file beside the first: a problem, the level no longer serves.
    await writeFile(join(levels, 'city-lights/item.json'), '{}')
    // A resource gone: missing, the level no longer serves.
    await rm(join(levels, 'thunder-road/cover.png'))
    await cp(join(levels, 'morning-dew'), join(levels, 'morning-dew-copy'), { recursive: true })
    await rename(join(levels, 'first-light'), join(levels, 'first-light-renamed'))
    await rm(join(levels, 'rough-sketch'), { recursive: true })
    const { with: taken, without } = await withAndWithout(folder)
    const names = Object.keys(taken.details)
    for (const gone of ['city-lights', 'thunder-road', 'first-light', 'rough-sketch'])
        assert.not.ok(names.includes(gone), gone)
    for (const there of ['morning-dew-copy', 'first-light-renamed'])
        assert.ok(names.includes(there), there)
    assert.ok(taken.problems.some((problem) => problem.startsWith('levels/city-lights')))
    assert.ok(taken.problems.some((problem) => problem.startsWith('levels/thunder-road')))
    assert.equal(taken, without)
})

test('with a large hash cache, a start where a few items changed looks up only theirs, serves them as a start without the snapshot, and its save keeps every other entry', async () => {
    // Every path the cache keys entries by has characters JSON escapes, or writes as they are.
    const folder = await snapshotted('コンテンツ "shelf"')
    const cacheFile = join(folder.cache, 'hashes.json')
    // Entries of paths elsewhere (another tree's, say) make the cache large enough to be looked
    // in one entry at a time rather than read whole.
    const padding = await HashCache.open(cacheFile)
    await padding.loaded()
    padding.keepUnseen()
    const info = await stat(folder.cache)
    for (let index = 0; index < 20_000; index++) {
        const path = join(folder.cache, 'elsewhere', `level-${index}`, 'cover.png')
        padding.remember(path, info, { hash: '0'.repeat(40), path, contentType: 'image/png' })
    }
    await padding.save()
    assert.ok((await stat(cacheFile)).size > 2 * 1024 * 1024)
    const linesBefore = (await readFile(cacheFile, 'utf8')).split('\n')

    const levels = join(folder.content, 'levels')
    const cover = join(levels, 'city-lights/cover.png')
    const bytes = await readFile(cover)
    bytes[bytes.length - 1]! ^= 0xff
    await writeFile(`${cover}.new`, bytes)
    await rename(`${cover}.new`, cover)
    const record = join(levels, 'morning-dew/item.md')
    await writeFile(
        record,
        (await readFile(record, 'utf8')).replace(
            /^title: .*$/m,
            'title: { en: "Dew ナイト \\"quoted\\"" }',
        ),
    )
    await cp(join(levels, 'first-light'), join(levels, 'first-light-copy'), { recursive: true })
    await rm(join(levels, 'rough-sketch'), { recursive: true })
    // Listings of folders changed in the last second are not kept: the next start would list them again.
    const edited = Date.now()
    await eventually(
        'the edits are older than the caches trust',
        async () => Date.now() - edited > racyMs + 100,
    )

    const { fromSnapshot, with: taken, without } = await withAndWithout(folder)
    assert.ok(fromSnapshot > 0)
    assert.equal(taken, without)
    assert.ok(Object.keys(taken.details).includes('first-light-copy'))
    assert.not.ok(Object.keys(taken.details).includes('rough-sketch'))
    assert.is(taken.details['morning-dew']!.item.title, 'Dew ナイト "quoted"')
    const linesAfter = new Set((await readFile(cacheFile, 'utf8')).split('\n'))
    const elsewhere = linesBefore.filter((line) => line.includes('elsewhere'))
    assert.is(elsewhere.length, 20_000)
    assert.ok(
        elsewhere.every((line) => linesAfter.has(line)),
        'the other entries are kept as they were',
    )

    // The entries the start from the snapshot did not look up are kept and used: one given a hash
    // no file has is served so by a start without the snapshot, which reads it rather than
    // hashing the file again.
    const kept = join(folder.content, 'levels', 'night-drive', 'cover.png')
    const text = await readFile(cacheFile, 'utf8')
    const line = text.split('\n').find((entry) => entry.startsWith(`[${JSON.stringify(kept)},`))
    assert.ok(line, 'the entry of a level taken from the snapshot is kept')
    const marked = 'f'.repeat(40)
    await writeFile(cacheFile, text.replace(line, line.replace(/"[0-9a-f]{40}"/, `"${marked}"`)))
    await rm(join(folder.cache, 'start-records.jsonl'))
    const plain = await start(folder.content, folder.cache)
    try {
        assert.is(plain.fromSnapshot, 0)
        const { details } = await served(plain)
        assert.is(details['night-drive']!.item.cover.hash, marked)
        // Their items (their details list others, night-drive among them).
        for (const name of ['city-lights', 'morning-dew', 'first-light-copy'])
            assert.equal(details[name]!.item, without.details[name]!.item, name)
    } finally {
        await plain.close()
    }
})

test('a level edited while down to name a missing item is left out, not served as the snapshot kept it', async () => {
    const folder = await snapshotted()
    const file = join(folder.content, 'levels/city-lights/item.yaml')
    await writeFile(
        file,
        (await readFile(file, 'utf8')).replace(
            'useEffect: retro-beeps',
            'useEffect: no-such-effect',
        ),
    )
    const { fromSnapshot, with: taken, without } = await withAndWithout(folder)
    assert.ok(fromSnapshot > 0)
    assert.not.ok(Object.keys(taken.details).includes('city-lights'))
    assert.ok(taken.problems.some((problem) => problem.includes('no-such-effect')))
    assert.equal(taken, without)
})

test("the settings and a type's defaults changed while down are seen", async () => {
    const folder = await snapshotted()
    const defaults = join(folder.content, 'levels/_defaults.yaml')
    await writeFile(
        defaults,
        (await readFile(defaults, 'utf8')).replace('engine: shelf-tap', 'engine: shelf-hold'),
    )
    const settings = join(folder.content, 'server.yaml')
    await writeFile(
        settings,
        (await readFile(settings, 'utf8')).replace('en: Shelf example', 'en: Changed Shelf'),
    )
    const shelf = await start(folder.content, folder.cache)
    try {
        const { details } = await served(shelf)
        assert.is(
            details['city-lights']!.item.engine.name,
            'shelf-hold',
            'a level without its own engine takes the new default',
        )
        const info = await getJson<{ title: string }>(`${shelf.url}/service/info`)
        assert.is(info.body.title, 'Changed Shelf')
    } finally {
        await shelf.close()
    }
    const { with: taken, without } = await withAndWithout(folder)
    assert.equal(taken, without)
})

test('a snapshot cut short, broken, of another build or with checks of another is ignored', async () => {
    const folder = await snapshotted()
    const records = join(folder.cache, 'start-records.jsonl')
    const checks = join(folder.cache, 'start-checks.jsonl')
    const good = await readFile(records, 'utf8')
    const goodChecks = await readFile(checks, 'utf8')
    const expected = (await withAndWithout(folder)).without
    const spoilt: [string, string, string][] = [
        ['cut short', good.slice(0, good.length / 2), goodChecks],
        ['not JSON', 'garbage', goodChecks],
        ['another build', good.replace(/"shelf":"[^"]*"/, '"shelf":"0:1:2"'), goodChecks],
        // Written by a build before this format (whose build id then began with its format).
        [
            'of the format before',
            good.replace(/"format":\d+/, '"format":1').replace(/"shelf":"\d+:/, '"shelf":"1:'),
            goodChecks,
        ],
        ['checks of another snapshot', good, goodChecks.replace(/"id":"/, '"id":"x')],
        ['checks broken', good, goodChecks.slice(0, 100)],
        ['a line broken', good.replace(/\n\[/, '\n[1,2\n['), goodChecks],
        ['the last line missing', good.slice(0, good.lastIndexOf('{')), goodChecks],
    ]
    for (const [what, text, checksText] of spoilt) {
        await writeFile(records, text)
        await writeFile(checks, checksText)
        const shelf = await start(folder.content, folder.cache)
        try {
            assert.is(shelf.fromSnapshot, 0, what)
            assert.equal(await served(shelf), expected, what)
        } finally {
            await shelf.close()
        }
    }
})

test('a server stopped before its snapshot is saved stops without it, leaves no temporary file, and the next start reads every folder', async () => {
    const content = await copyContent()
    const cache = await temporaryFolder('shelf-cache-')
    // Watching: the snapshot waits for the first scan, which is not over when the server stops.
    const shelf = await start(content, cache, true)
    await shelf.close()
    await shelf.snapshotSaved
    assert.not.ok(await exists(join(cache, 'start-records.jsonl')), 'no snapshot written')
    assert.equal(
        (await readdir(cache)).filter((name) => name.endsWith('.tmp')),
        [],
        'no temporary file left',
    )
    const next = await start(content, cache)
    try {
        assert.is(next.fromSnapshot, 0)
        const list = await getJson<ServerItemList<LevelItem>>(`${next.url}/service/levels/list`)
        assert.ok(list.body.items.length > 0)
    } finally {
        await next.close()
    }
})

test.run()
