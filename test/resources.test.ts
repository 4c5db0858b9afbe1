/**
 * Resources (protocol §4) over real HTTP: every Srl reachable from the example content's home,
 * landing pages, lists and details is fetched, and its bytes, status and caching headers checked.
 */
import { version } from '@sonolus/core'
import { createHash } from 'node:crypto'
import { rm } from 'node:fs/promises'
import { join } from 'node:path'
import { gunzipSync } from 'node:zlib'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import {
    contentTypes,
    protocolTypes,
    readLeaderboards,
    readRecords,
} from './support/content-files.js'
import { assertJsonError, rawRequest, type RawResponse } from './support/http.js'
import { assertShape } from './support/response-shapes.js'
import { tinyMp3, writeTree } from './support/fixtures.js'
import { copyContent, getJson, startTestServer, type TestServer } from './support/server.js'

type Srl = { hash: string; url: string; role: string }

const test = suite('resources')
let server: TestServer
/** Every Srl found, by hash; `roles` are the field names it appeared under. */
const srls = new Map<string, Srl & { roles: Set<string>; where: string }>()
const responses = new Map<string, RawResponse>()

const sha1 = (bytes: Buffer) => createHash('sha1').update(bytes).digest('hex')

const walk = (value: unknown, where: string, role = '') => {
    if (Array.isArray(value)) {
        for (const entry of value) walk(entry, where, role)
    } else if (value && typeof value === 'object') {
        const object = value as Record<string, unknown>
        if (typeof object.hash === 'string' && typeof object.url === 'string') {
            const known = srls.get(object.hash)
            if (known) {
                assert.is(known.url, object.url, `one hash, one url (${object.hash})`)
                known.roles.add(role)
            } else {
                srls.set(object.hash, {
                    hash: object.hash,
                    url: object.url,
                    role,
                    roles: new Set([role]),
                    where,
                })
            }
        }
        for (const [key, entry] of Object.entries(object)) walk(entry, where, key)
    }
}

const collect = async (path: string) => {
    const { status, body } = await getJson(`${server.root}${path}`)
    assert.is(status, 200, path)
    walk(body, path)
}

test.before(async () => {
    assertShape('ServerMessage', {})
    server = await startTestServer({ address: 'https://example.test/shelf' })
    await collect('/info')
    for (const type of protocolTypes) {
        await collect(`/${type}s/info`)
        await collect(`/${type}s/list`)
    }
    for (const type of contentTypes) {
        for (const record of readRecords(type).filter((entry) => !entry.draft)) {
            await collect(`/${type}s/${record.name}`)
            for (const leaderboard of readLeaderboards(type, record.name)) {
                for (const entry of leaderboard.records)
                    await collect(
                        `/${type}s/${record.name}/leaderboards/${leaderboard.name}/records/${entry.name}`,
                    )
            }
        }
    }
    for (const srl of srls.values())
        responses.set(
            srl.hash,
            await rawRequest(server.url, srl.url, {
                headers: { 'accept-encoding': 'gzip, deflate, br' },
            }),
        )
})

test.after(async () => {
    await server?.stop()
})

const withRole = (...roles: string[]) =>
    [...srls.values()].filter((srl) => roles.some((role) => srl.roles.has(role)))

test('self-check: the walk found the resources of every kind', () => {
    assert.ok(srls.size >= 40, `${srls.size} resources`)
    for (const role of [
        'banner',
        'cover',
        'bgm',
        'preview',
        'data',
        'thumbnail',
        'texture',
        'image',
        'configuration',
        'audio',
        'playData',
        'watchData',
        'previewData',
        'tutorialData',
        'rom',
    ]) {
        assert.ok(withRole(role).length > 0, `a "${role}" resource`)
    }
})

test('every Srl points at this server: /service/repository/{hash}', () => {
    for (const srl of srls.values()) {
        assert.match(srl.hash, /^[0-9a-f]{40}$/)
        assert.is(srl.url, `/service/repository/${srl.hash}`, `${srl.role} from ${srl.where}`)
    }
})

test('every resource is a 200 whose bytes have the SHA-1 of its hash', () => {
    for (const srl of srls.values()) {
        const response = responses.get(srl.hash)!
        assert.is(response.status, 200, `${srl.role} ${srl.url} (from ${srl.where})`)
        assert.ok(response.body.length > 0)
        assert.is(sha1(response.body), srl.hash, `${srl.role} ${srl.url}: SHA-1 of the bytes`)
    }
})

test('resources are cached for a year as immutable, with an ETag and the version header', () => {
    for (const srl of srls.values()) {
        const response = responses.get(srl.hash)!
        const cacheControl = response.header('cache-control') ?? ''
        assert.ok(cacheControl.includes('immutable'), `${srl.url}: ${cacheControl}`)
        assert.ok(cacheControl.includes('max-age=31536000'), `${srl.url}: ${cacheControl}`)
        assert.ok(response.header('etag'), `${srl.url}: ETag`)
        assert.is(response.header('service-version'), version.sonolus)
    }
})

test('a conditional GET of a resource is a 304 without a body', async () => {
    for (const srl of srls.values()) {
        const etag = responses.get(srl.hash)!.header('etag')!
        const again = await rawRequest(server.url, srl.url, { headers: { 'if-none-match': etag } })
        assert.is(again.status, 304, `${srl.role} ${srl.url}`)
        assert.is(again.body.length, 0)
    }
})

test('content types: images, audio and zip archives', () => {
    const expected: [string[], string][] = [
        [['banner', 'cover', 'thumbnail', 'texture', 'image'], 'image/png'],
        [['bgm', 'preview'], 'audio/mpeg'],
        [['audio'], 'application/zip'],
    ]
    for (const [roles, type] of expected) {
        const found = withRole(...roles)
        assert.ok(found.length > 0)
        for (const srl of found)
            assert.is(
                responses.get(srl.hash)!.header('content-type'),
                type,
                `${srl.role} ${srl.url}`,
            )
    }
})

test('gzip resources are sent without Content-Encoding, even to a client accepting gzip, and gunzip to JSON', () => {
    const gzipJson = withRole(
        'data',
        'configuration',
        'playData',
        'watchData',
        'previewData',
        'tutorialData',
    )
    assert.ok(gzipJson.length >= 10)
    for (const srl of gzipJson) {
        const response = responses.get(srl.hash)!
        assert.is(response.header('content-encoding'), undefined, `${srl.role} ${srl.url}`)
        assert.is(response.body[0], 0x1f, `${srl.role}: gzip magic`)
        assert.is(response.body[1], 0x8b)
        const json = JSON.parse(gunzipSync(response.body).toString('utf8')) as unknown
        assert.type(json, 'object', `${srl.role} ${srl.url}: JSON`)
    }
    for (const srl of withRole('rom')) {
        const response = responses.get(srl.hash)!
        assert.is(response.header('content-encoding'), undefined)
        assert.is(gunzipSync(response.body).length % 4, 0, 'a ROM is float32 values')
    }
    for (const srl of withRole('cover', 'bgm', 'audio'))
        assert.is(
            responses.get(srl.hash)!.header('content-encoding'),
            undefined,
            `${srl.role}: sent as stored`,
        )
})

test('a Range request on a level bgm is a 206 with the right Content-Range and bytes', async () => {
    const { body } = await getJson<{ item: { bgm: Srl } }>(`${server.root}/levels/first-steps`)
    const full = responses.get(body.item.bgm.hash)!.body
    assert.ok(full.length > 300)
    const cases: [string, number, number][] = [
        ['bytes=0-99', 0, 99],
        ['bytes=100-299', 100, 299],
        [`bytes=${full.length - 50}-`, full.length - 50, full.length - 1],
        ['bytes=-10', full.length - 10, full.length - 1],
    ]
    for (const [range, start, end] of cases) {
        const response = await rawRequest(server.url, body.item.bgm.url, { headers: { range } })
        assert.is(response.status, 206, range)
        assert.is(response.statusText, 'Partial Content', `${range}: the status line`)
        assert.is(response.header('content-range'), `bytes ${start}-${end}/${full.length}`, range)
        assert.ok(response.body.equals(full.subarray(start, end + 1)), `${range}: the bytes`)
        assert.is(response.header('content-type'), 'audio/mpeg')
    }
    const unsatisfiable = await rawRequest(server.url, body.item.bgm.url, {
        headers: { range: `bytes=${full.length + 10}-` },
    })
    assert.is(unsatisfiable.status, 416)
    assert.is(unsatisfiable.statusText, 'Range Not Satisfiable')
})

test('a small resource is answered again from memory, a large one streams, a Range always goes to the file, one gone from disk is a 404', async () => {
    const content = await copyContent()
    // A bgm of 1 MiB, past what is kept in memory; its bytes differ at every position that matters.
    const large = Buffer.concat([
        tinyMp3(7),
        Buffer.from(Array.from({ length: 1024 * 1024 }, (_, index) => (index * 31) % 251)),
    ])
    await writeTree(content, { 'levels/first-steps/bgm.mp3': large })
    const copy = await startTestServer({ content, watch: false })
    try {
        const { body } = await getJson<{ item: { bgm: Srl; cover: Srl } }>(
            `${copy.root}/levels/first-steps`,
        )
        assert.is(body.item.bgm.hash, sha1(large))
        const first = await rawRequest(copy.url, body.item.bgm.url)
        assert.is(first.status, 200)
        assert.ok(first.body.equals(large), 'the large file whole')
        const partial = await rawRequest(copy.url, body.item.bgm.url, {
            headers: { range: 'bytes=1000-1999' },
        })
        assert.is(partial.status, 206)
        assert.ok(partial.body.equals(large.subarray(1000, 2000)))

        const cover = await rawRequest(copy.url, body.item.cover.url)
        const again = await rawRequest(copy.url, body.item.cover.url)
        assert.is(again.status, 200)
        assert.ok(again.body.equals(cover.body), 'the same bytes the second time')
        assert.is(sha1(again.body), body.item.cover.hash)
        assert.is(again.header('cache-control'), cover.header('cache-control'))
        assert.is(again.header('content-type'), 'image/png')
        const coverRange = await rawRequest(copy.url, body.item.cover.url, {
            headers: { range: 'bytes=0-7' },
        })
        assert.is(coverRange.status, 206, 'a Range on a resource answered from memory before')
        assert.ok(coverRange.body.equals(cover.body.subarray(0, 8)))

        // Removed behind the server's back (it is not watching), before anyone asked for them: a 404
        // with a JSON message, whichever way the resource would have gone out.
        const other = await getJson<{ item: { cover: Srl } }>(`${copy.root}/levels/city-lights`)
        await rm(join(content, 'levels/city-lights/cover.png'))
        await rm(join(content, 'levels/first-steps/bgm.mp3'))
        for (const srl of [other.body.item.cover, body.item.bgm]) {
            const gone = await rawRequest(copy.url, srl.url)
            assertJsonError(
                { status: gone.status, headers: gone.headers, body: gone.json() },
                404,
                srl.url,
            )
        }
    } finally {
        await copy.stop()
        await rm(content, { recursive: true, force: true })
    }
})

test('an unknown or malformed hash is a 404 with a JSON message', async () => {
    const known = [...srls.keys()][0]!
    const paths = [
        '/service/repository/0000000000000000000000000000000000000000',
        `/service/repository/${known.slice(0, -1)}${known.endsWith('0') ? '1' : '0'}`,
        `/service/repository/${known.toUpperCase()}`,
        `/service/repository/${known.slice(0, 39)}`,
        `/service/repository/${known}0`,
        '/service/repository/not-a-hash',
        '/service/repository/zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz',
    ]
    for (const path of paths) {
        if (srls.has(path.split('/').at(-1)!)) continue
        const response = await rawRequest(server.url, path)
        assertJsonError({ ...response, body: response.json() }, 404, path)
    }
})

test.run()
