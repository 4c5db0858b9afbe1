/**
 * Not-found and malformed requests (always a clean JSON error, never a 500 or a file's contents),
 * the headers every response carries, conditional requests on JSON, the protocol name option,
 * and `source` when no address is configured.
 */
import { version } from '@sonolus/core'
import { createHash } from 'node:crypto'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { assertJsonError, collectItems, collectSrls, rawRequest } from './support/http.js'
import { assertShape } from './support/response-shapes.js'
import { getJson, startTestServer, type TestServer } from './support/server.js'

const test = suite('errors, headers and the protocol name')
let server: TestServer
let sonolus: TestServer

test.before(async () => {
    // Generating the response schemas blocks for seconds: do it before any socket is open.
    assertShape('ServerMessage', {})
    ;[server, sonolus] = await Promise.all([
        startTestServer({ readOnly: true }),
        startTestServer({ name: 'sonolus', address: 'https://example.test' }),
    ])
})

test.after(async () => {
    await Promise.all([server?.stop(), sonolus?.stop()])
})

const raw = (path: string, options?: Parameters<typeof rawRequest>[2]) =>
    rawRequest(server.url, path, options)

/** Anything a leak would show: package.json, server.yaml or an item file. */
const leaks = (body: string) =>
    /"dependencies"|"devDependencies"|fallbackLocale|engine: shelf-tap|^---/m.test(body)

// ---------------------------------------------------------------- 404s

test('404 JSON: unknown type, unknown path, unknown item', async () => {
    const paths = [
        '/service/widgets/list',
        '/service/widgets/info',
        '/service/widgets/first-steps',
        '/service/level/list',
        '/service/levels/no-such-level',
        '/service/levels/first-steps/no/such/path',
        '/service/levels/first-steps/leaderboards/top/records/1/more',
        '/service/nothing',
        '/service',
        '/service/',
        '/nothing/at/all',
        // `/` is the web pages' home (test/web-pages.test.ts); with --no-web it is a 404 like these.
        '/service/repository',
    ]
    for (const path of paths) {
        const response = await raw(path)
        assertJsonError({ ...response, body: response.json() }, 404, path)
        assert.is(
            response.header('service-version'),
            version.sonolus,
            `${path}: version header on errors`,
        )
    }
})

test('404 JSON: POST to read routes, and on a read-only server to every write', async () => {
    const paths = [
        '/service/info',
        '/service/levels/info',
        '/service/levels/list',
        '/service/levels/first-steps',
        '/service/levels/first-steps/submit',
        '/service/levels/first-steps/upload',
        '/service/levels/create',
        '/service/levels/upload',
        '/service/levels/first-steps/community/submit',
        '/service/levels/first-steps/community/comments/list',
        '/service/levels/first-steps/community/comments/2026-05-09-niaj/submit',
        '/service/levels/first-steps/leaderboards/top',
        '/service/levels/result/submit',
        '/service/levels/result/upload',
        '/service/rooms/create',
        '/service/rooms/some-room',
    ]
    for (const path of paths) {
        const response = await raw(path, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
        })
        assertJsonError({ ...response, body: response.json() }, 404, `POST ${path}`)
        assert.is(response.header('service-version'), version.sonolus)
    }
})

test('names that try to leave the folder, or are huge, get a clean 404/400 JSON', async () => {
    const long = 'a'.repeat(5000)
    const paths = [
        '/service/levels/..%2F..%2Fpackage.json',
        '/service/levels/..%2f..%2fserver.yaml',
        '/service/levels/%2e%2e',
        '/service/levels/%2e%2e/%2e%2e/package.json',
        '/service/levels/%2E%2E%2F%2E%2E%2Fpackage.json',
        '/service/levels/..',
        '/service/levels/../../package.json',
        '/service/levels/....//',
        '/service/levels/....//....//package.json',
        '/service/levels/first-steps%2F..%2F..%2Fserver.yaml',
        '/service/levels/first-steps%2Fitem.md',
        '/service/levels/%00',
        '/service/levels/%E0%A4%A',
        '/service/levels/%',
        `/service/levels/${long}`,
        `/service/levels/${long}/community/comments/list`,
        `/service/levels/first-steps/leaderboards/${long}`,
        '/service/levels/first-steps/leaderboards/..%2F..%2F..%2Fpackage.json',
        '/service/levels/first-steps/leaderboards/top/records/..%2F..%2F..%2F..%2Fpackage.json',
        '/service/levels/first-steps/community/comments/..%2Fcomments/list',
        '/service/repository/..%2F..%2Fpackage.json',
        '/service/repository/%2e%2e%2f%2e%2e%2fpackage.json',
        '/service/repository/../../package.json',
        `/service/repository/${long}`,
        `/service/${long}/list`,
        '/service/levels/list?type=quick&keywords=' + 'x'.repeat(5000),
    ]
    for (const path of paths) {
        const response = await raw(path)
        const text = response.body.toString('utf8')
        assert.ok(
            response.status !== 200 || path.includes('/list?'),
            `${path.slice(0, 80)}: not a 200 (${response.status})`,
        )
        assert.ok(
            response.status < 500,
            `${path.slice(0, 80)}: no server error (${response.status}: ${text.slice(0, 200)})`,
        )
        assert.not.ok(leaks(text), `${path.slice(0, 80)}: leaked a file: ${text.slice(0, 200)}`)
        if (response.status !== 200)
            assertJsonError({ ...response, body: response.json() }, [400, 404], path.slice(0, 80))
    }
})

// ---------------------------------------------------------------- headers

test('every response carries Service-Version = version.sonolus of @sonolus/core', async () => {
    const info = await getJson<{ banner: { url: string } }>(`${server.root}/info`)
    const requests: [string, Parameters<typeof rawRequest>[2]?][] = [
        ['/service/info'],
        ['/service/levels/info'],
        ['/service/levels/list'],
        ['/service/levels/first-steps'],
        ['/service/levels/first-steps/community/comments/list'],
        ['/service/levels/first-steps/leaderboards/top'],
        ['/service/levels/result/info'],
        ['/service/levels/list?page=-1'],
        ['/service/levels/list?type=advanced&genre=jazz'],
        ['/service/levels/no-such-level'],
        ['/nothing'],
        ['/service/info', { method: 'POST' }],
        [info.body.banner.url],
        [
            info.body.banner.url,
            { headers: { 'if-none-match': `"${info.body.banner.url.split('/').at(-1)}"` } },
        ],
        ['/service/repository/0000000000000000000000000000000000000000'],
    ]
    for (const [path, options] of requests) {
        const response = await raw(path, options)
        assert.is(
            response.header('service-version'),
            version.sonolus,
            `${options?.method ?? 'GET'} ${path} (${response.status})`,
        )
    }
})

test('JSON responses have a JSON content type and an ETag; a repeat with If-None-Match is a 304 without a body', async () => {
    const paths = [
        '/service/info',
        '/service/levels/info',
        '/service/levels/list',
        '/service/levels/list?type=advanced&sort=rating',
        '/service/levels/first-steps',
        '/service/levels/first-steps/community/comments/list?page=1',
        '/service/levels/first-steps/leaderboards/top/records/1',
    ]
    for (const path of paths) {
        for (const encoding of ['identity', 'gzip']) {
            const first = await raw(path, { headers: { 'accept-encoding': encoding } })
            assert.is(first.status, 200, path)
            assert.match(first.header('content-type') ?? '', /^application\/json; charset=utf-8$/)
            const etag = first.header('etag')
            assert.ok(etag, `${path}: an ETag`)
            const again = await raw(path, {
                headers: { 'accept-encoding': encoding, 'if-none-match': etag },
            })
            assert.is(again.status, 304, `${path} (${encoding}): 304 on a repeat`)
            assert.is(again.body.length, 0, `${path}: no body on a 304`)
            assert.is(again.header('service-version'), version.sonolus)
            const changed = await raw(path, {
                headers: { 'accept-encoding': encoding, 'if-none-match': '"something-else"' },
            })
            assert.is(changed.status, 200, `${path}: another ETag gets the body`)
            const listed = await raw(path, {
                headers: {
                    'accept-encoding': encoding,
                    'if-none-match': `"something-else", ${etag}`,
                },
            })
            assert.is(listed.status, 304, `${path}: its ETag among others`)
            const reload = await raw(path, {
                headers: {
                    'accept-encoding': encoding,
                    'if-none-match': etag,
                    'cache-control': 'no-cache',
                },
            })
            assert.is(
                reload.status,
                200,
                `${path}: Cache-Control: no-cache asks for the body again`,
            )
        }
    }
    // Different content, different ETag.
    const en = await raw('/service/info?localization=en')
    const ja = await raw('/service/info?localization=ja')
    assert.is.not(en.header('etag'), ja.header('etag'))
})

test('a repeated request gets the same headers and bytes; a request for another Host never gets an answer made for this one', async () => {
    const path = '/service/levels/list'
    const first = await raw(path)
    const again = await raw(path)
    const { date: _firstDate, ...firstHeaders } = first.headers
    const { date: _againDate, ...againHeaders } = again.headers
    assert.equal(againHeaders, firstHeaders)
    assert.ok(again.body.equals(first.body), 'the same bytes')
    const sources = (response: Awaited<ReturnType<typeof raw>>) =>
        new Set(collectItems(response.json()).map((item) => item.source))
    const other = await raw(path, { headers: { host: 'shelf.test:8080' } })
    assert.equal(sources(other), new Set(['http://shelf.test:8080']))
    assert.equal(sources(await raw(path)), new Set([server.url]))
})

// ---------------------------------------------------------------- protocol name

test("name 'sonolus': paths under /sonolus with a Sonolus-Version header; /service answers too, with its own", async () => {
    const info = await getJson<{ banner: { url: string } }>(`${sonolus.url}/sonolus/info`)
    assert.is(info.status, 200)
    assertShape('ServerInfo', info.body)
    assert.is(info.headers.get('sonolus-version'), version.sonolus)
    assert.is(info.headers.get('service-version'), null)
    assert.match(info.body.banner.url, /^\/sonolus\/repository\/[0-9a-f]{40}$/)

    const levels = await getJson<{ items: unknown[] }>(`${sonolus.url}/sonolus/levels/list`)
    assert.is(levels.status, 200)
    assertShape('LevelList', levels.body)
    const srls = [...collectSrls(levels.body).values()]
    assert.ok(srls.length > 0)
    for (const srl of srls) assert.ok(srl.url.startsWith('/sonolus/repository/'), srl.url)
    // (Statuses and caching of resources are tested in resources.test.ts.)
    const resource = await rawRequest(sonolus.url, srls[0]!.url)
    assert.is(
        createHash('sha1').update(resource.body).digest('hex'),
        srls[0]!.hash,
        'the resource is served under /sonolus',
    )
    assert.is(resource.header('sonolus-version'), version.sonolus)

    // The spec's name answers too (see both-prefixes.test.ts), under its own headers and links.
    const service = await rawRequest(sonolus.url, '/service/info')
    assert.is(service.status, 200)
    assert.is(service.header('service-version'), version.sonolus)
    assert.is(service.header('sonolus-version'), undefined)
    assert.match(
        service.json<{ banner: { url: string } }>().banner.url,
        /^\/service\/repository\/[0-9a-f]{40}$/,
    )
    const other = await rawRequest(sonolus.url, '/other/info')
    assertJsonError({ ...other, body: other.json() }, 404, '/other/info on a sonolus server')
})

// ---------------------------------------------------------------- source without an address

test('without a configured address, source is the address the request came to', async () => {
    for (const path of ['/levels/list', '/levels/first-steps', '/replays/list']) {
        const { status, body } = await getJson(`${server.root}${path}`)
        assert.is(status, 200)
        const items = collectItems(body)
        assert.ok(items.length > 0)
        for (const item of items) assert.is(item.source, server.url, `${path}: ${item.name}.source`)
    }
})

test.run()
