/**
 * What makes starts quick without changing what they find: the validators `npm run build`
 * precompiles answer exactly as the schemas compiled at run time, an item folder's listing kept
 * in the hash cache is used only while the folder is unchanged, and the processed files a cold
 * start writes without a flush each are flushed together, and made again when a crash left them short.
 */
import { createHash } from 'node:crypto'
import { mkdir, readdir, readFile, rm, truncate, writeFile } from 'node:fs/promises'
import { statSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Ajv, type ValidateFunction } from 'ajv'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { Containment } from '../src/content/containment.js'
import { listFolder } from '../src/content/folder-listing.js'
import { HashCache } from '../src/content/hash-cache.js'
import { MadePacks, readSlice } from '../src/content/made-pack.js'
import { readServed, ResourceProcessor } from '../src/content/resources.js'
import { signedShape, signedShapeExport } from '../src/auth/signed-shape.js'
import { PackageDescriptions } from '../src/charts/package-descriptions.js'
import { standaloneValidatorsCode } from '../src/content/standalone-validators.js'
import { schemaAjv } from '../src/content/schema-ajv.js'
import { exportName, schemasFolder, validatedSchemaIds } from '../src/content/schemas.js'
import { makeDurable } from '../src/util/durable.js'
import { validatorFile, validatorsIn } from '../src/util/precompiled-validators.js'
import { temporaryFolder } from './support/server.js'

/** Records wrong in the ways people get them wrong: missing, misspelt and mistyped fields, broken alternatives. */
const wrongRecords: unknown[] = [
    {},
    { titel: 'Night Drive' },
    { title: 5, rating: 'hard', engine: ['a'] },
    {
        title: { en: 'x', zz: 3 },
        tags: ['ok', { title: 1 }],
        useSkin: { useDefault: 'no' },
        time: 'yesterday',
    },
    { title: 'x', author: 'y', levels: 'one', records: [{ player: 1 }], meta: [], draft: 'yes' },
    [],
    'a string',
]

/** Signed bodies wrong in each way the shape checks, and one right. */
const profile = Object.fromEntries(
    (signedShape.properties.userProfile.required as readonly string[]).map((field) => [
        field,
        field === 'favorites' ? [] : 'x',
    ]),
)
const signedBodies: unknown[] = [
    { type: 'authenticateServer', address: 'http://a', time: 1, userProfile: profile },
    {},
    { type: 1, address: 'http://a', time: 1, userProfile: profile },
    { type: 'x', address: 'http://a', time: '1', userProfile: profile },
    { type: 'x', address: 'http://a', time: 1, userProfile: { ...profile, favorites: [1] } },
    { type: 'x', address: 'http://a', time: 1, userProfile: { ...profile, name: undefined } },
    [],
]

test('the precompiled validators report the same errors as the schemas compiled at run time', async () => {
    // The modules resolve ajv's runtime helpers from where they are, so they are written inside the project.
    const folder = fileURLToPath(
        new URL(`../node_modules/.cache/shelf-tests/validators-${process.pid}/`, import.meta.url),
    )
    await mkdir(folder, { recursive: true })
    const modules = standaloneValidatorsCode(schemasFolder, { [signedShapeExport]: signedShape })
    for (const [name, code] of Object.entries(modules))
        await writeFile(join(folder, validatorFile(name)), code)
    const precompiled = validatorsIn(folder)
    try {
        const ajv = schemaAjv(schemasFolder)
        for (const id of validatedSchemaIds()) {
            const compiled = ajv.getSchema(id)!
            const standalone = precompiled(exportName(id))
            assert.ok(standalone, `${id} is precompiled`)
            for (const record of wrongRecords) {
                assert.is(standalone!(record), compiled(record), `${id}: ${JSON.stringify(record)}`)
                assert.equal(
                    standalone!.errors,
                    compiled.errors,
                    `${id}: ${JSON.stringify(record)}`,
                )
            }
        }
        // The sign-in's shape, against its compile at run time (signed-request.ts): the first error is the one said.
        const shape = precompiled(signedShapeExport)
        assert.ok(shape, 'the signed shape is precompiled')
        const compiled = new Ajv({ allErrors: false, meta: false, validateSchema: false }).compile(
            signedShape,
        )
        for (const body of signedBodies) {
            assert.is(shape!(body), compiled(body), JSON.stringify(body))
            const said = (validate: ValidateFunction) =>
                validate.errors?.slice(0, 1).map(({ instancePath, message }) => ({
                    instancePath,
                    message,
                }))
            assert.equal(said(shape!), said(compiled), JSON.stringify(body))
        }
    } finally {
        await rm(folder, { recursive: true, force: true })
    }
})

test('a folder listing is reused while the folder is unchanged, and not trusted when just changed', async () => {
    const root = await temporaryFolder()
    const folder = join(root, 'level')
    const cacheFile = join(root, '.shelf', 'hashes.json')
    try {
        await mkdir(join(folder, 'comments'), { recursive: true })
        await writeFile(join(folder, 'item.json'), '{}')
        // A folder changed within the last second may change again with the same ctime.
        await new Promise((done) => setTimeout(done, 1100))
        const first = await HashCache.open(cacheFile)
        assert.equal(listFolder(folder, first, new Containment(folder)), {
            files: ['item.json'],
            folders: ['comments'],
        })
        await first.save()

        const second = await HashCache.open(cacheFile)
        assert.equal(second.lookupListing(folder, statSync(folder)), {
            files: ['item.json'],
            folders: ['comments'],
        })
        await writeFile(join(folder, 'cover.png'), '')
        assert.is(
            second.lookupListing(folder, statSync(folder)),
            undefined,
            'a file added moves the ctime',
        )
        assert.equal(listFolder(folder, second, new Containment(folder)).files.sort(), [
            'cover.png',
            'item.json',
        ])
        await second.save()

        const third = await HashCache.open(cacheFile)
        assert.is(
            third.lookupListing(folder, statSync(folder)),
            undefined,
            'the listing right after the change was not kept',
        )
        assert.equal(listFolder(folder, third, new Containment(folder)).files.sort(), [
            'cover.png',
            'item.json',
        ])
    } finally {
        await rm(root, { recursive: true, force: true })
    }
})

const sha1 = (bytes: Buffer) => createHash('sha1').update(bytes).digest('hex')

test('the hash cache is saved in pieces: every entry read back, and one remembered during a save saved by the next', async () => {
    const root = await temporaryFolder()
    const cacheFile = join(root, '.shelf', 'hashes.json')
    try {
        // Enough files for several pieces, between which the event loop turns.
        const files = Array.from({ length: 4500 }, (_, index) => join(root, `file-${index}.png`))
        await writeFile(join(root, 'one.png'), 'x')
        const info = statSync(join(root, 'one.png'))
        const served = (path: string) => ({
            hash: sha1(Buffer.from(path)),
            path,
            contentType: 'image/png',
        })
        const first = await HashCache.open(cacheFile)
        for (const file of files) first.remember(file, info, served(file))
        const saving = first.save()
        // A reload remembers a file while the save is under way (between two of its pieces).
        await new Promise((done) => setImmediate(done))
        const late = join(root, 'late.png')
        first.remember(late, info, served(late))
        await saving
        await first.save()

        const second = await HashCache.open(cacheFile)
        const always = () => true
        for (const file of [...files, late])
            assert.equal(second.lookup(file, info, always), served(file), file)
        await writeFile(cacheFile, '{"version":2,"entries":[["cut')
        const third = await HashCache.open(cacheFile)
        assert.is(third.lookup(late, info, always), undefined, 'a broken cache is a cold start')
    } finally {
        await rm(root, { recursive: true, force: true })
    }
})

test('the hash cache looked up one at a time, then read a piece at a time, finds what it read at once; a cache of the one-line version 3 is read and written anew as lines', async () => {
    const root = await temporaryFolder()
    const cacheFile = join(root, '.shelf', 'hashes.json')
    try {
        await writeFile(join(root, 'one.png'), 'x')
        const info = statSync(join(root, 'one.png'))
        const files = Array.from(
            { length: 150_000 },
            (_, index) => `/levels/level-${index}/cover.png`,
        )
        const served = (path: string) => ({
            hash: sha1(Buffer.from(path)),
            path,
            contentType: 'image/png',
        })
        // What version 3 wrote: everything on one line.
        await mkdir(join(root, '.shelf'))
        await writeFile(
            cacheFile,
            JSON.stringify({
                version: 3,
                entries: files.map((file) => [
                    file,
                    info.size,
                    info.mtimeMs,
                    sha1(Buffer.from(file)),
                    'image/png',
                ]),
                folders: [['/levels/level-0', 1, 'cover.png', 'comments']],
            }),
        )
        const always = () => true
        const old = await HashCache.open(cacheFile)
        await old.loaded()
        for (const file of files) assert.equal(old.lookup(file, info, always), served(file), file)
        await old.save()
        const lines = (await readFile(cacheFile, 'utf8')).trimEnd().split('\n')
        assert.equal(JSON.parse(lines[0]!), { version: 5 })
        assert.is(
            lines.length,
            1 + files.length,
            'an entry a line, the folder listing not seen dropped',
        )

        const piecewise = await HashCache.open(cacheFile)
        // Looked up one at a time at first, then, with enough looked up, read whole in tens of
        // pieces of a megabyte: the reading lets other work run between them.
        let turns = 0
        const counting = setInterval(() => turns++, 0)
        for (const file of files) {
            await piecewise.loaded()
            assert.equal(piecewise.lookup(file, info, always), served(file), file)
        }
        clearInterval(counting)
        assert.ok(turns >= 2, `timers ran ${turns} times during the look-ups and the read`)
        const atOnce = await HashCache.open(cacheFile)
        assert.equal(atOnce.lookup(files[7]!, info, always), served(files[7]!))
    } finally {
        await rm(root, { recursive: true, force: true })
    }
})

/** What a path remembered in the hash cache served, in its tests. */
const servedPng = (path: string) => ({
    hash: sha1(Buffer.from(path)),
    path,
    contentType: 'image/png',
})

test('the hash cache released once saved is read again at the next look-up, and its next save keeps the entries that look-up did not see', async () => {
    const root = await temporaryFolder()
    const cacheFile = join(root, '.shelf', 'hashes.json')
    const served = servedPng
    try {
        const info = statSync(root)
        const [seen, unseen, unsaved, added] = ['seen', 'unseen', 'unsaved', 'added'].map((name) =>
            join(root, `${name}.png`),
        )
        const always = () => true
        const cache = await HashCache.open(cacheFile)
        cache.remember(seen!, info, served(seen!))
        cache.remember(unseen!, info, served(unseen!))
        await cache.save()
        cache.release()
        // A reload after the release: it reads the file again and looks up one of the two.
        await cache.loaded()
        assert.equal(cache.lookup(seen!, info, always), served(seen!))
        cache.remember(unsaved!, info, served(unsaved!))
        // Not released while it holds an entry the file does not.
        cache.release()
        assert.equal(cache.lookup(unsaved!, info, always), served(unsaved!))
        await cache.save()
        cache.release()
        await cache.loaded()
        cache.remember(added!, info, served(added!))
        await cache.save()

        const next = await HashCache.open(cacheFile)
        for (const file of [seen!, unseen!, unsaved!, added!])
            assert.equal(next.lookup(file, info, always), served(file), file)
    } finally {
        await rm(root, { recursive: true, force: true })
    }
})

test('a processed file a crash left short, before the cache naming it was saved, is made again', async () => {
    const root = await temporaryFolder()
    const state = join(root, '.shelf')
    const cacheFile = join(state, 'hashes.json')
    const data = join(root, 'data.json')
    try {
        await writeFile(
            data,
            JSON.stringify({
                bgmOffset: 0,
                entities: Array.from({ length: 200 }, (_, index) => ({
                    archetype: 'Note',
                    data: [index],
                })),
            }),
        )
        const first = new ResourceProcessor(state, await HashCache.open(cacheFile))
        const served = await first.process(data, 'data.json')
        await first.saveCache()
        assert.is(
            sha1(await readServed(served)),
            served.hash,
            'the processed bytes have the SHA-1 they are served by',
        )
        assert.ok(statSync(cacheFile).size > 0, 'the cache is saved')

        // Written without a flush each: a crash may leave a file short and the cache unsaved.
        await truncate(served.path, 10)
        await rm(cacheFile)
        const second = new ResourceProcessor(state, await HashCache.open(cacheFile))
        const again = await second.process(data, 'data.json')
        assert.is(again.hash, served.hash)
        assert.is(sha1(await readServed(again)), served.hash, 'the short file was written again')
    } finally {
        await rm(root, { recursive: true, force: true })
    }
})

test('small processed files share packs, one per writer: two processors of one state folder each read their own, and a removed pack is made again', async () => {
    const root = await temporaryFolder()
    const state = join(root, '.shelf')
    const cacheFile = join(state, 'hashes.json')
    try {
        const files = ['a', 'b', 'c'].map((name) => join(root, `${name}.json`))
        for (const [index, file] of files.entries())
            await writeFile(
                file,
                JSON.stringify({ entities: [{ archetype: 'Note', data: [index] }] }),
            )
        // A server and an export of the same folder, at the same time.
        const server = new ResourceProcessor(state, await HashCache.open(cacheFile))
        const other = new ResourceProcessor(state, await HashCache.open(cacheFile))
        const [first, second] = await Promise.all([
            Promise.all(files.map((file) => server.process(file, 'data.json'))),
            Promise.all(files.map((file) => other.process(file, 'data.json'))),
        ])
        for (const [index, served] of first.entries()) {
            assert.ok(served.slice, 'a small processed file is a slice of a pack')
            assert.is(sha1(await readServed(served)), served.hash)
            assert.is(sha1(await readServed(second[index]!)), served.hash)
        }
        assert.is.not(first[0]!.path, second[0]!.path, 'each writer has a pack of its own')
        await server.saveCache()
        await other.saveCache()

        const warm = new ResourceProcessor(state, await HashCache.open(cacheFile))
        const again = await warm.process(files[1]!, 'data.json')
        assert.equal(again, second[1], 'the pack the cache names is trusted while whole')
        for (const name of await readdir(join(state, 'resources')))
            await rm(join(state, 'resources', name))
        const gone = new ResourceProcessor(state, await HashCache.open(cacheFile))
        const made = await gone.process(files[1]!, 'data.json')
        assert.is(made.hash, again.hash)
        assert.is(sha1(await readServed(made)), made.hash, 'made again once its pack is gone')
        await gone.saveCache()
    } finally {
        await rm(root, { recursive: true, force: true })
    }
})

test('bytes appended to a pack in one turn are written together, each whole in its own slice, past a batch of a MiB too', async () => {
    const root = await temporaryFolder()
    try {
        const packs = new MadePacks(root)
        // Sizes chosen so that the batches of a turn cross a MiB: one starts another past it.
        const appended = [10, 700_000, 3, 500_000, 1, 300_000, 64].map((size, index) =>
            Buffer.alloc(size, index + 1),
        )
        const slices = await Promise.all(appended.map((bytes) => packs.append(bytes)))
        const late = Buffer.from('appended in a later turn')
        const lateSlice = await packs.append(late)
        for (const [index, { path, slice }] of slices.entries()) {
            assert.ok(packs.holds(path, slice))
            assert.ok((await readSlice(path, slice)).equals(appended[index]!), `slice ${index}`)
        }
        assert.ok((await readSlice(lateSlice.path, lateSlice.slice)).equals(late))
        const path = await packs.seal()
        const total = [...appended, late].reduce((sum, bytes) => sum + bytes.length, 0)
        assert.is(statSync(path!).size, total, 'every byte written once, in place')
        const reopened = new MadePacks(root)
        for (const { path, slice } of [...slices, lateSlice]) assert.ok(reopened.holds(path, slice))
    } finally {
        await rm(root, { recursive: true, force: true })
    }
})

test('files written without a flush are made durable through sync -f, or an fsync each where there is no sync', async () => {
    const root = await temporaryFolder()
    const path = process.env.PATH
    try {
        const file = join(root, 'written')
        await writeFile(file, 'bytes')
        await makeDurable(root, [file])
        await makeDurable(root, [])
        // Without `sync` on the PATH, each file is fsynced: one that is not there says so.
        process.env.PATH = join(root, 'no-such-folder')
        await makeDurable(root, [file])
        await makeDurable(root, [join(root, 'missing')]).then(
            () => assert.unreachable('an fsync of a missing file fails'),
            (error: NodeJS.ErrnoException) => assert.is(error.code, 'ENOENT'),
        )
    } finally {
        process.env.PATH = path
        await rm(root, { recursive: true, force: true })
    }
})

test("an engine package's module is loaded again only when its version or main module changed", async () => {
    const root = await temporaryFolder()
    const file = join(root, 'engine-packages.json')
    const entry = join(root, 'index.cjs')
    try {
        await writeFile(entry, 'module.exports = {}')
        const loads: string[] = []
        const describe = (descriptions: PackageDescriptions, version: string) =>
            descriptions.describe('sonolus-x-engine', version, entry, async () => {
                loads.push(version)
                return { texts: { title: `X ${version}` }, formats: ['data.usc'] }
            })
        const said = { texts: { title: 'X 1.0.0' }, formats: ['data.usc'] }
        assert.equal(await describe(new PackageDescriptions(file), '1.0.0'), said)
        // A later start, nothing changed: kept.
        const kept = await describe(new PackageDescriptions(file), '1.0.0')
        assert.equal({ texts: kept.texts, formats: kept.formats }, said)
        assert.equal(loads, ['1.0.0'])
        await describe(new PackageDescriptions(file), '1.1.0')
        assert.equal(loads, ['1.0.0', '1.1.0'])
        // The same version, its module rewritten (a linked package being worked on).
        await writeFile(entry, 'module.exports = { changed: true }')
        await describe(new PackageDescriptions(file), '1.1.0')
        assert.equal(loads, ['1.0.0', '1.1.0', '1.1.0'])
        // A broken file is no reason not to start: the module is loaded.
        await writeFile(file, '{"sonolus-x-engine": ')
        await describe(new PackageDescriptions(file), '1.1.0')
        assert.equal(loads.length, 4)
    } finally {
        await rm(root, { recursive: true, force: true })
    }
})

test.run()
