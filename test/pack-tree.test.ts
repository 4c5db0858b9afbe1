/**
 * An unmodified sonolus-pack source tree serves as it is: every item, every resource, with the
 * pack format's resource rules (`.srl`, extensionless files, `.json` and `.bin` gzip-compressed).
 */
import type { EngineItem, LevelItem, ServerItemDetails, ServerItemList, Srl } from '@sonolus/core'
import { cp, readFile, rename, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { gunzipSync } from 'node:zlib'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import {
    generatePackTree,
    PACK_ITEM_TYPES,
    type GeneratedTree,
} from '../bench/generate-pack-tree.js'
import type { ContentType } from '../src/content/item-types.js'
import { getBytes, sha1 } from './support/fixtures.js'
import { assertShape } from './support/response-shapes.js'
import { getJson, startTestServer, temporaryFolder, type TestServer } from './support/server.js'

const address = 'https://shelf.example/packs'
const levelCount = 50

let folder: string
let tree: GeneratedTree
/** Serves the tree exactly as generated. */
let server: TestServer
/** Serves a copy with a few pack-format resource variants added (see `before`). */
let modified: TestServer
let modifiedDir: string

// The levels of the copy that get a resource variant.
let srlLevel: string
let barePngLevel: string
let prettyJsonLevel: string
const externalBgm = { hash: 'ab'.repeat(20), url: 'https://cdn.example/music/bgm.mp3' }
const romValues = [1, 0.5, -2, 3.25, 1e-3]

type AnyDetails = ServerItemDetails<Record<string, unknown> & { name: string }>
const detailsCache = new Map<string, Promise<AnyDetails>>()

/** Item details of the untouched tree, fetched once per item. */
const details = (type: string, name: string) => {
    const key = `${type}/${name}`
    let cached = detailsCache.get(key)
    if (!cached) {
        cached = getJson<AnyDetails>(`${server.root}/${type}/${name}`).then(({ status, body }) => {
            assert.is(status, 200, `GET ${key}`)
            return body
        })
        detailsCache.set(key, cached)
    }
    return cached
}

const sourceJson = async (dir: string, path: string) =>
    JSON.parse(await readFile(join(dir, path), 'utf8')) as Record<string, unknown>

/** The bytes behind an Srl of this server (its url is relative to the address, whose path the proxy maps to `/`). */
const fetchSrl = async (on: TestServer, srl: Srl | undefined) => {
    assert.ok(srl?.hash && srl.url, `expected an Srl with hash and url, got ${JSON.stringify(srl)}`)
    assert.ok(srl.url.startsWith('/service/repository/'), srl.url)
    const response = await getBytes(`${on.url}${srl.url}`)
    assert.is(response.status, 200, `GET ${srl.url}`)
    assert.is(
        response.headers.get('content-encoding'),
        null,
        'resources carry their own gzip layer; no Content-Encoding',
    )
    assert.is(
        sha1(response.bytes),
        srl.hash,
        `the hash of ${srl.url} is the SHA-1 of the bytes served`,
    )
    return response
}

/** A `.json` resource: gzip of the minified source file. */
const assertJsonResource = async (
    on: TestServer,
    srl: Srl | undefined,
    dir: string,
    path: string,
) => {
    const { bytes } = await fetchSrl(on, srl)
    assert.equal([...bytes.subarray(0, 2)], [0x1f, 0x8b], `${path} is served gzip-compressed`)
    const served = gunzipSync(bytes).toString('utf8')
    const source = await sourceJson(dir, path)
    assert.equal(JSON.parse(served), source, `${path}: same JSON`)
    assert.is(served, JSON.stringify(source), `${path}: minified`)
}

/** Any other resource: the file's bytes, untouched. */
const assertFileResource = async (
    on: TestServer,
    srl: Srl | undefined,
    dir: string,
    path: string,
    contentType: string,
) => {
    const response = await fetchSrl(on, srl)
    assert.ok(
        response.bytes.equals(await readFile(join(dir, path))),
        `${path} is served byte-identical`,
    )
    assert.is(response.headers.get('content-type'), contentType, `content type of ${path}`)
}

test.before(async () => {
    // The response schemas take seconds to compile, blocking the event loop: do it before any
    // request, so that no keep-alive connection times out in the middle of a test.
    assertShape('ServerMessage', {})
    folder = await temporaryFolder('shelf-pack-tree-')
    tree = await generatePackTree(join(folder, 'tree'), { levels: levelCount, seed: 7 })
    server = await startTestServer({ content: tree.dir, address })

    modifiedDir = join(folder, 'modified')
    await cp(tree.dir, modifiedDir, { recursive: true })
    ;[srlLevel, barePngLevel, prettyJsonLevel] = tree.names.levels as [string, string, string]
    // `bgm.srl` next to `bgm.mp3`: the Srl file comes first in the lookup order.
    await writeFile(join(modifiedDir, 'levels', srlLevel, 'bgm.srl'), JSON.stringify(externalBgm))
    await rename(
        join(modifiedDir, 'levels', barePngLevel, 'cover.png'),
        join(modifiedDir, 'levels', barePngLevel, 'cover'),
    )
    const dataPath = join(modifiedDir, 'levels', prettyJsonLevel, 'data.json')
    await writeFile(
        dataPath,
        `${JSON.stringify(JSON.parse(await readFile(dataPath, 'utf8')), null, 4)}\n`,
    )
    await writeFile(
        join(modifiedDir, 'engines', 'bench-tap', 'rom.bin'),
        Buffer.from(new Float32Array(romValues).buffer),
    )
    modified = await startTestServer({ content: modifiedDir, address })
})

test.after(async () => {
    await Promise.allSettled([server?.stop(), modified?.stop()])
    if (folder) await rm(folder, { recursive: true, force: true })
})

test('the untouched tree loads without a single problem, every item included', () => {
    assert.equal(server.catalog().problems, [])
    for (const type of PACK_ITEM_TYPES) {
        const singular = type.slice(0, -1) as ContentType
        assert.equal(
            [...server.catalog().items[singular].keys()].sort(),
            [...tree.names[type]].sort(),
            type,
        )
    }
    assert.equal(
        modified.catalog().problems,
        [],
        'the resource variants of the copy are all valid too',
    )
})

test('every level is listed, 20 per page', async () => {
    const listed: string[] = []
    for (let page = 0; page < 3; page++) {
        const { status, body } = await getJson<ServerItemList<LevelItem>>(
            `${server.root}/levels/list?page=${page}`,
        )
        assert.is(status, 200)
        assertShape('LevelList', body)
        assert.is(body.pageCount, Math.ceil(levelCount / 20))
        assert.is(body.items.length, page < 2 ? 20 : levelCount - 40)
        listed.push(...body.items.map((item) => item.name))
    }
    assert.is(new Set(listed).size, levelCount, 'no level twice')
    assert.equal(listed.sort(), [...tree.names.levels].sort())
    const past = await getJson<ServerItemList<LevelItem>>(`${server.root}/levels/list?page=3`)
    assert.is(past.status, 200)
    assert.equal(past.body.items, [], 'a page past the end is empty')
})

test('every item of the other types is listed', async () => {
    for (const type of PACK_ITEM_TYPES.filter((type) => type !== 'levels')) {
        const { status, body } = await getJson<ServerItemList<{ name: string }>>(
            `${server.root}/${type}/list`,
        )
        assert.is(status, 200, type)
        assert.is(body.pageCount, 1, type)
        assert.equal(body.items.map((item) => item.name).sort(), [...tree.names[type]].sort(), type)
    }
})

test("a level's details are a LevelDetails whose engine, skin, background, effect and particle are the referenced items", async () => {
    let nonDefaultUses = 0
    for (const name of tree.names.levels) {
        const record = await sourceJson(tree.dir, `levels/${name}/item.json`)
        const body = (await details('levels', name)) as unknown as ServerItemDetails<LevelItem>
        assertShape('LevelDetails', body)
        const level = body.item
        assert.is(level.name, name)
        assert.is(level.source, address)
        assert.is(level.title, (record.title as { en: string }).en)
        assert.is(level.rating, record.rating)
        assert.is(level.artists, (record.artists as { en: string }).en)
        assert.is(level.author, (record.author as { en: string }).en)
        assert.equal(
            level.tags.map((tag) => tag.title),
            (record.tags as { title: { en: string } }[]).map((tag) => tag.title.en),
        )
        assert.is(body.description, (record.description as { en: string } | undefined)?.en)

        assert.is(level.engine.name, record.engine)
        assert.equal(
            level.engine,
            (await details('engines', String(record.engine))).item,
            'the engine is the engine item itself',
        )
        for (const [field, type] of [
            ['useSkin', 'skins'],
            ['useBackground', 'backgrounds'],
            ['useEffect', 'effects'],
            ['useParticle', 'particles'],
        ] as const) {
            const use = record[field] as { useDefault: boolean; item?: string }
            if (use.useDefault) {
                assert.equal(level[field], { useDefault: true }, `${name} ${field}`)
            } else {
                nonDefaultUses++
                assert.equal(
                    level[field],
                    { useDefault: false, item: (await details(type, use.item!)).item },
                    `${name} ${field}`,
                )
            }
        }
    }
    assert.ok(
        nonDefaultUses > 0,
        'the tree has levels that choose their own skin, background, effect or particle',
    )
})

test("an engine's skin, background, effect and particle are the items its record names", async () => {
    for (const name of tree.names.engines) {
        const record = await sourceJson(tree.dir, `engines/${name}/item.json`)
        const body = (await details('engines', name)) as unknown as ServerItemDetails<EngineItem>
        assertShape('EngineDetails', body)
        assert.is(body.item.rom, undefined, 'no rom.bin, no rom')
        for (const [field, type] of [
            ['skin', 'skins'],
            ['background', 'backgrounds'],
            ['effect', 'effects'],
            ['particle', 'particles'],
        ] as const) {
            assert.equal(
                body.item[field],
                (await details(type, String(record[field]))).item,
                `${name} ${field}`,
            )
        }
    }
})

test('.json resources are served gzip-compressed and minified, hashed by the bytes served', async () => {
    const name = tree.names.levels[0]!
    const level = (await details('levels', name)).item as unknown as LevelItem
    await assertJsonResource(server, level.data, tree.dir, `levels/${name}/data.json`)
    const engine = level.engine
    for (const role of [
        'playData',
        'watchData',
        'previewData',
        'tutorialData',
        'configuration',
    ] as const) {
        await assertJsonResource(
            server,
            engine[role],
            tree.dir,
            `engines/${engine.name}/${role}.json`,
        )
    }
    await assertJsonResource(
        server,
        engine.skin.data,
        tree.dir,
        `skins/${engine.skin.name}/data.json`,
    )
    await assertJsonResource(
        server,
        engine.background.data,
        tree.dir,
        `backgrounds/${engine.background.name}/data.json`,
    )
    await assertJsonResource(
        server,
        engine.background.configuration,
        tree.dir,
        `backgrounds/${engine.background.name}/configuration.json`,
    )
    await assertJsonResource(
        server,
        engine.effect.data,
        tree.dir,
        `effects/${engine.effect.name}/data.json`,
    )
    await assertJsonResource(
        server,
        engine.particle.data,
        tree.dir,
        `particles/${engine.particle.name}/data.json`,
    )
    for (const replay of tree.names.replays) {
        const item = (await details('replays', replay)).item as unknown as {
            data: Srl
            configuration: Srl
        }
        await assertJsonResource(server, item.data, tree.dir, `replays/${replay}/data.json`)
        await assertJsonResource(
            server,
            item.configuration,
            tree.dir,
            `replays/${replay}/configuration.json`,
        )
    }
})

test('a pretty-printed .json resource is minified before compression', async () => {
    const path = `levels/${prettyJsonLevel}/data.json`
    const source = await readFile(join(modifiedDir, path), 'utf8')
    assert.ok(source.includes('\n    '), 'the copy holds an indented file')
    const { body } = await getJson<ServerItemDetails<LevelItem>>(
        `${modified.root}/levels/${prettyJsonLevel}`,
    )
    await assertJsonResource(modified, body.item.data, modifiedDir, path)
    const original = (await details('levels', prettyJsonLevel)).item as unknown as LevelItem
    assert.equal(
        body.item.data,
        original.data,
        'the same JSON, however it is indented, is the same resource',
    )
})

test('.png, .mp3 and .zip resources are served byte-identical to the files', async () => {
    const name = tree.names.levels[0]!
    const level = (await details('levels', name)).item as unknown as LevelItem
    await assertFileResource(server, level.cover, tree.dir, `levels/${name}/cover.png`, 'image/png')
    await assertFileResource(server, level.bgm, tree.dir, `levels/${name}/bgm.mp3`, 'audio/mpeg')
    const { engine } = level
    await assertFileResource(
        server,
        engine.thumbnail,
        tree.dir,
        `engines/${engine.name}/thumbnail.png`,
        'image/png',
    )
    await assertFileResource(
        server,
        engine.skin.texture,
        tree.dir,
        `skins/${engine.skin.name}/texture.png`,
        'image/png',
    )
    await assertFileResource(
        server,
        engine.background.image,
        tree.dir,
        `backgrounds/${engine.background.name}/image.png`,
        'image/png',
    )
    await assertFileResource(
        server,
        engine.effect.audio,
        tree.dir,
        `effects/${engine.effect.name}/audio.zip`,
        'application/zip',
    )
    await assertFileResource(
        server,
        level.preview,
        tree.dir,
        `levels/${name}/preview.mp3`,
        'audio/mpeg',
    )
})

test('a <role>.srl file is served as the Srl it contains', async () => {
    const { status, body } = await getJson<ServerItemDetails<LevelItem>>(
        `${modified.root}/levels/${srlLevel}`,
    )
    assert.is(status, 200)
    assertShape('LevelDetails', body)
    assert.equal(body.item.bgm, externalBgm)
    const original = (await details('levels', srlLevel)).item as unknown as LevelItem
    assert.equal(body.item.cover, original.cover, 'the other resources are unchanged')
})

test('an extensionless resource file is served byte-identical, its content type sniffed', async () => {
    const { status, body } = await getJson<ServerItemDetails<LevelItem>>(
        `${modified.root}/levels/${barePngLevel}`,
    )
    assert.is(status, 200)
    const bytes = await readFile(join(modifiedDir, 'levels', barePngLevel, 'cover'))
    assert.is(body.item.cover.hash, sha1(bytes))
    await assertFileResource(
        modified,
        body.item.cover,
        modifiedDir,
        `levels/${barePngLevel}/cover`,
        'image/png',
    )
})

test('.bin resources (an engine rom) are served gzip-compressed', async () => {
    const { status, body } = await getJson<ServerItemDetails<EngineItem>>(
        `${modified.root}/engines/bench-tap`,
    )
    assert.is(status, 200)
    assertShape('EngineDetails', body)
    const { bytes } = await fetchSrl(modified, body.item.rom)
    const rom = gunzipSync(bytes)
    assert.ok(
        rom.equals(await readFile(join(modifiedDir, 'engines/bench-tap/rom.bin'))),
        'gunzip gives the file back',
    )
    assert.equal(
        [...new Float32Array(rom.buffer, rom.byteOffset, rom.length / 4)],
        [...new Float32Array(romValues)],
    )
})

test.run()
