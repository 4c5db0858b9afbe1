/**
 * Resources of a real size from a folder anywhere: a generated pack tree whose first level holds
 * a 60,000-note chart (its gzip over the 256 KiB answered from memory) and a 3 MiB bgm, in a
 * content folder under a hidden folder (a `%` in its name, which is no URL escape), the state
 * folder in its default place (`.shelf/`).
 * Every Srl a guest reaches is asked whole, by Range and conditionally, and its bytes checked.
 */
import type { LevelData } from '@sonolus/core'
import { readFile, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { gunzipSync } from 'node:zlib'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { generatePackTree, realSizeOf, type GeneratedTree } from '../bench/generate-pack-tree.js'
import { getBytes, sha1 } from './support/fixtures.js'
import { crawlGuest } from './support/guest-crawl.js'
import { rawRequest } from './support/http.js'
import { getJson, startTestServer, temporaryFolder, type TestServer } from './support/server.js'

const test = suite('big resources')
const inMemoryBytes = 256 * 1024

let folder: string
let tree: GeneratedTree
let server: TestServer
/** Srl url → its hash, as the crawl found them. */
let srls: Map<string, string>
const served = new Map<string, Buffer>()

type LevelSrls = { item: { bgm: { url: string }; data: { url: string } } }

test.before(async () => {
    folder = await temporaryFolder('shelf-big-')
    tree = await generatePackTree(join(folder, '.hidden 100%', 'content'), { levels: 3 })
    // No sign-in: the crawl follows the home's buttons, and a guest's app has no use for it here.
    server = await startTestServer({
        content: tree.dir,
        cache: undefined,
        signIn: { enabled: false },
    })
    const crawl = await crawlGuest(
        async (path) => {
            const { status, bytes } = await getBytes(`${server.url}${path}`)
            return { status, body: bytes }
        },
        'service',
        'en',
    )
    for (const answer of crawl.answers) assert.is(answer.status, 200, answer.path)
    srls = crawl.srls
})

test.after(async () => {
    await server?.stop()
    if (folder) await rm(folder, { recursive: true, force: true })
})

const bigLevel = async () => {
    const name = tree.names.levels[1]!
    const { status, body } = await getJson<LevelSrls>(`${server.root}/levels/${name}`)
    assert.is(status, 200)
    return { name, ...body.item }
}

test('the tree is what the test is about: a real-sized level under a hidden folder, state in .shelf/', async () => {
    assert.ok(tree.dir.includes('/.hidden 100%/'))
    assert.equal(realSizeOf(1), { notes: 60_000, bgmBytes: 3 * 1024 * 1024 })
    const { bgm, data } = await bigLevel()
    assert.ok(srls.has(bgm.url) && srls.has(data.url), 'the crawl found the big level')
    const whole = (await getBytes(`${server.url}${data.url}`)).bytes
    assert.ok(whole.length > inMemoryBytes, `the chart's gzip is ${whole.length} bytes`)
    assert.ok(srls.size >= 20, `${srls.size} Srls`)
})

test('every Srl answers whole: 200, bytes whose SHA-1 is its hash, cached as immutable', async () => {
    for (const [url, hash] of srls) {
        const response = await getBytes(`${server.url}${url}`)
        assert.is(response.status, 200, url)
        assert.is(sha1(response.bytes), hash, url)
        assert.is(response.headers.get('etag'), `"${hash}"`, url)
        assert.ok(response.headers.get('cache-control')?.includes('immutable'), url)
        served.set(url, response.bytes)
    }
})

test('the big level serves its source files: the bgm as it is, the chart gzipped with every entity', async () => {
    const { name, bgm, data } = await bigLevel()
    const source = join(tree.dir, 'levels', name)
    const bgmBytes = await readFile(join(source, 'bgm.mp3'))
    assert.ok(bgmBytes.length >= 3_000_000)
    assert.ok(served.get(bgm.url)!.equals(bgmBytes))
    const chart = JSON.parse(gunzipSync(served.get(data.url)!).toString('utf8')) as LevelData
    const written = JSON.parse(await readFile(join(source, 'data.json'), 'utf8')) as LevelData
    assert.is(chart.entities.length, 60_002)
    assert.equal(chart, written)
})

test('every Srl answers a Range with 206 Partial Content and exactly those bytes', async () => {
    for (const [url] of srls) {
        const whole = served.get(url)!
        const last = whole.length - 1
        const ranges: [string, number, number][] = [
            ['bytes=0-0', 0, 0],
            [`bytes=${Math.floor(last / 2)}-`, Math.floor(last / 2), last],
            ['bytes=-10', Math.max(0, last - 9), last],
        ]
        for (const [range, start, end] of ranges) {
            const response = await rawRequest(server.url, url, { headers: { range } })
            assert.is(response.status, 206, `${url} ${range}`)
            assert.is(response.header('content-range'), `bytes ${start}-${end}/${whole.length}`)
            assert.ok(response.body.equals(whole.subarray(start, end + 1)), `${url} ${range}`)
        }
    }
})

test('every Srl answers a conditional GET with 304, a Range under a stale If-Range whole', async () => {
    for (const [url, hash] of srls) {
        const again = await rawRequest(server.url, url, {
            headers: { 'if-none-match': `"${hash}"` },
        })
        assert.is(again.status, 304, url)
        assert.is(again.body.length, 0, url)
        const stale = await rawRequest(server.url, url, {
            headers: { range: 'bytes=0-0', 'if-range': '"0000"' },
        })
        assert.is(stale.status, 200, `${url}: If-Range with another ETag`)
        assert.ok(stale.body.equals(served.get(url)!), url)
    }
})

test.run()
