/**
 * The web pages over HTTP: headers (Content-Security-Policy, ETag and 304, compression), the
 * language chosen, link previews and canonical addresses, robots, the live-preview stream, the
 * problems page's owner rule, --no-web, --web-client, and the 404 the official web client reads.
 */
import zlib, { gunzipSync } from 'node:zlib'
import { syncBuiltinESMExports } from 'node:module'
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises'
import { request as httpRequest } from 'node:http'
import { rawRequest } from './support/http.js'
import { join } from 'node:path'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { lanAddresses } from '../src/auth/addresses.js'
import { startShelf } from '../src/server.js'
import {
    copyContent,
    exampleContent,
    startTestServer,
    temporaryFolder,
    type TestServer,
} from './support/server.js'

let server: TestServer

test.before(async () => {
    server = await startTestServer({ watch: true })
})

test.after(async () => {
    await server?.stop()
})

const page = async (path: string, headers: Record<string, string> = {}, base = server.url) => {
    const response = await fetch(`${base}${path}`, { headers })
    return { status: response.status, headers: response.headers, html: await response.text() }
}

const attribute = (html: string, pattern: RegExp) => pattern.exec(html)?.[1]

test('a page is HTML with a strict Content-Security-Policy, an ETag and a 304 for it', async () => {
    const first = await page('/levels/first-steps?lang=en')
    assert.is(first.status, 200)
    assert.match(first.headers.get('content-type')!, /^text\/html; charset=utf-8/)
    const policy = first.headers.get('content-security-policy')!
    assert.match(policy, /default-src 'none'/)
    assert.match(policy, /script-src 'self'(;|$)/)
    assert.not.match(policy, /unsafe-inline|unsafe-eval/)
    assert.is(first.headers.get('x-content-type-options'), 'nosniff')
    assert.not.match(
        first.html,
        /<script>|<script [^>]*>[^<]|\son[a-z]+=/i,
        'no inline script nor handler attribute',
    )
    // Each encoding has its own ETag: this one is the plain page's.
    const etag = (await rawRequest(server.url, '/levels/first-steps?lang=en')).header('etag')!
    assert.match(etag, /^"[^"]+"$/)
    // Node's fetch sends Cache-Control: no-cache with a conditional request, which rightly gets the body.
    const again = await rawRequest(server.url, '/levels/first-steps?lang=en', {
        headers: { 'If-None-Match': etag },
    })
    assert.is(again.status, 304)
    assert.is(again.body.length, 0)
    const gzipped = await rawRequest(server.url, '/levels/first-steps?lang=en', {
        headers: { 'Accept-Encoding': 'gzip' },
    })
    assert.is(gzipped.header('content-encoding'), 'gzip')
    const kept = await rawRequest(server.url, '/levels/first-steps?lang=en', {
        headers: { 'Accept-Encoding': 'gzip' },
    })
    assert.ok(kept.body.equals(gzipped.body), 'the same bytes again')
    assert.is(gunzipSync(gzipped.body).toString(), first.html, 'the same page, compressed')
})

test('a page is kept per snapshot and compressed once per encoding, like the JSON answers', async () => {
    let compressions = 0
    const counted = <F extends (...args: never[]) => unknown>(original: F) =>
        ((...args: Parameters<F>) => {
            compressions++
            return original(...args)
        }) as unknown as F
    const originals = { brotliCompressSync: zlib.brotliCompressSync, gzipSync: zlib.gzipSync }
    zlib.brotliCompressSync = counted(originals.brotliCompressSync)
    zlib.gzipSync = counted(originals.gzipSync)
    syncBuiltinESMExports()
    try {
        const path = '/levels/night-drive?lang=en'
        const first = await rawRequest(server.url, path, { headers: { 'Accept-Encoding': 'br' } })
        assert.is(first.header('content-encoding'), 'br')
        assert.is(compressions, 1, 'br alone: gzip is made when first asked for')
        for (const encoding of ['br', 'gzip', 'br', 'gzip', 'identity']) {
            const again = await rawRequest(server.url, path, {
                headers: { 'Accept-Encoding': encoding },
            })
            assert.is(again.status, 200)
            assert.is(
                again.header('content-encoding'),
                encoding === 'identity' ? undefined : encoding,
            )
        }
        assert.is(compressions, 2, 'gzip once, and no page compressed again')
    } finally {
        zlib.brotliCompressSync = originals.brotliCompressSync
        zlib.gzipSync = originals.gzipSync
        syncBuiltinESMExports()
    }
})

test('the language: ?lang= first, then Accept-Language (the answer then varies by it), then fallbackLocale', async () => {
    const chosen = await page('/?lang=ja', { 'Accept-Language': 'en' })
    assert.match(chosen.html, /<h1>Shelf のサンプル<\/h1>/)
    assert.not.match(chosen.headers.get('vary') ?? '', /accept-language/i)
    const negotiated = await page('/', { 'Accept-Language': 'fr-FR,ja;q=0.8,en;q=0.5' })
    assert.match(negotiated.html, /<h1>Shelf のサンプル<\/h1>/)
    assert.match(negotiated.html, /<html lang="ja">/)
    assert.match(negotiated.headers.get('vary')!, /accept-language/i)
    const fallback = await page('/', { 'Accept-Language': 'fr' })
    assert.match(fallback.html, /<h1>Shelf example<\/h1>/)
    const unknown = await page('/?lang=xx')
    assert.match(
        unknown.html,
        /<h1>Shelf example<\/h1>/,
        'a language no text is written in reads like the fallback',
    )
    assert.match(
        chosen.html,
        /<a href="\/\?lang=en" hreflang="en" lang="en">English<\/a>/,
        'the language switch',
    )
    assert.match(chosen.html, /href="\/levels\/list\?lang=ja"/, 'links keep the chosen language')
})

test('link previews: Open Graph and Twitter tags with the absolute cover address, canonical links, robots for unlisted and draft items', async () => {
    const shelf = await startTestServer({ address: 'https://example.com/shelf', name: 'sonolus' })
    try {
        const level = await page('/levels/first-steps?lang=en', {}, shelf.url)
        const cover = attribute(level.html, /<img class="cover" src="([^"]+)"/)!
        assert.match(
            cover,
            /^\/shelf\/sonolus\/repository\/[0-9a-f]{40}$/,
            'pages and resources below the address path',
        )
        assert.is(
            attribute(level.html, /<meta property="og:image" content="([^"]+)"/),
            `https://example.com${cover}`,
        )
        assert.is(
            attribute(level.html, /<meta name="twitter:image" content="([^"]+)"/),
            `https://example.com${cover}`,
        )
        assert.is(
            attribute(level.html, /<meta name="twitter:card" content="([^"]+)"/),
            'summary_large_image',
        )
        assert.is(
            attribute(level.html, /<meta property="og:title" content="([^"]+)"/),
            'First Steps',
        )
        assert.match(
            attribute(level.html, /<meta property="og:description" content="([^"]+)"/)!,
            /^A gentle first level/,
        )
        assert.is(
            attribute(level.html, /<link rel="canonical" href="([^"]+)"/),
            'https://example.com/shelf/levels/first-steps?lang=en',
        )
        assert.is(
            attribute(level.html, /<a class="open" href="([^"]+)"/),
            'https://open.sonolus.com/example.com/shelf/levels/first-steps',
        )
        assert.not.match(level.html, /name="robots"/)
        assert.not.match(level.html, /--name sonolus/)
        const unlisted = await page('/levels/secret-garden', {}, shelf.url)
        assert.is(unlisted.status, 200)
        assert.match(unlisted.html, /<meta name="robots" content="noindex, nofollow">/)
        assert.is(
            attribute(unlisted.html, /<link rel="canonical" href="([^"]+)"/),
            'https://example.com/shelf/levels/secret-garden',
        )
        const home = await page('/', {}, shelf.url)
        assert.is(
            attribute(home.html, /<a class="open" href="([^"]+)"/),
            'https://open.sonolus.com/example.com/shelf/',
        )
        const list = await page('/levels/list', {}, shelf.url)
        assert.not.match(
            list.html,
            /secret-garden|rough-sketch/,
            'neither unlisted nor draft items are listed',
        )
        assert.is(
            (await page('/levels/rough-sketch', {}, shelf.url)).status,
            404,
            'a draft is not served',
        )
    } finally {
        await shelf.stop()
    }
    const drafts = await startTestServer({ drafts: true })
    try {
        const draft = await page('/levels/rough-sketch', {}, drafts.url)
        assert.is(draft.status, 200)
        assert.match(draft.html, /<meta name="robots" content="noindex, nofollow">/)
    } finally {
        await drafts.stop()
    }
    const other = await page('/levels/first-steps')
    assert.not.match(
        other.html,
        /--name sonolus/,
        'with another protocol name the app still opens the server (it answers /sonolus/ too)',
    )
})

test('a missing item is an HTML 404 page; paths outside the pages stay JSON', async () => {
    const missing = await page('/levels/not-here?lang=en')
    assert.is(missing.status, 404)
    assert.match(missing.headers.get('content-type')!, /text\/html/)
    assert.match(missing.html, /<h1>Not found<\/h1>/)
    const unknownType = await fetch(`${server.url}/spaceships/list`)
    assert.is(unknownType.status, 404)
    assert.equal(await unknownType.json(), { message: 'nothing at GET /spaceships/list' })
    const badPage = await page('/levels/list?page=minus-one')
    assert.is(badPage.status, 400)
    assert.match(badPage.html, /&quot;page&quot; must be a page number/)
})

test('what a visitor types comes back escaped: the search words and the language', async () => {
    const typed = '"><script>alert(1)</script><img src=x onerror=alert(2)>'
    const list = await page(
        `/levels/list?keywords=${encodeURIComponent(typed)}&lang=${encodeURIComponent(typed)}`,
    )
    assert.is(list.status, 200)
    assert.match(
        list.html,
        /value="&quot;&gt;&lt;script&gt;alert\(1\)&lt;\/script&gt;&lt;img src=x onerror=alert\(2\)&gt;"/,
    )
    assert.not.match(list.html, /<script>alert|<img src=x/)
    assert.match(
        list.html,
        /<meta name="robots" content="noindex, nofollow">/,
        'search results are not indexed',
    )
})

test('a Host header no URL can hold still gets its page', async () => {
    for (const host of ['bad host', '[::1', 'a:b:c']) {
        const home = await rawRequest(server.url, '/?lang=en', { headers: { Host: host } })
        assert.ok(home.status < 500, `${host}: ${home.status}`)
    }
})

test('a list of 20 weighs at most 50 KB with its stylesheet', async () => {
    const list = await page('/levels/list?lang=en')
    const stylesheet = attribute(list.html, /<link rel="stylesheet" href="([^"]+)"/)!
    const css = await page(stylesheet)
    assert.is(css.status, 200)
    assert.match(css.headers.get('cache-control')!, /immutable/)
    const weight = Buffer.byteLength(list.html) + Buffer.byteLength(css.html)
    assert.ok(weight <= 50 * 1024, `${weight} bytes`)
})

test('the live preview: one event stream per page, a change event after an edit, closed cleanly', async () => {
    const content = await copyContent()
    const shelf = await startTestServer({ watch: true, content })
    try {
        const connections = () =>
            new Promise<number>((resolve) =>
                shelf.server.getConnections((_, count) => resolve(count)),
            )
        const received: string[] = []
        const stream = httpRequest(`${shelf.url}/_shelf/live`)
        const answered = new Promise<{ status?: number; type?: string }>((resolve) =>
            stream.on('response', (response) => {
                response.setEncoding('utf8').on('data', (chunk: string) => received.push(chunk))
                response.on('error', () => undefined)
                resolve({ status: response.statusCode, type: response.headers['content-type'] })
            }),
        )
        stream.on('error', () => undefined)
        stream.end()
        const { status, type } = await answered
        assert.is(status, 200)
        assert.match(type!, /^text\/event-stream/)
        const waitFor = async (pattern: RegExp) => {
            for (let tries = 0; tries < 250 && !pattern.test(received.join('')); tries++)
                await new Promise((resolve) => setTimeout(resolve, 20))
            assert.match(received.join(''), pattern, JSON.stringify(received))
        }
        await waitFor(/^retry: \d+\n\n/)
        assert.is(await connections(), 1)
        await writeFile(
            join(content, 'posts', 'welcome.md'),
            (await readFile(join(content, 'posts', 'welcome.md'), 'utf8')).replace(
                'Welcome to Shelf',
                'Welcome back',
            ),
        )
        await waitFor(/event: change\ndata: \d+\n\n/)
        stream.destroy()
        for (let tries = 0; tries < 50 && (await connections()) > 0; tries++)
            await new Promise((resolve) => setTimeout(resolve, 20))
        assert.is(await connections(), 0, 'the server let go of the stream')
    } finally {
        await shelf.stop()
        await rm(content, { recursive: true, force: true })
    }
})

test('--no-watch: no live preview, no problems page, no banner', async () => {
    const shelf = await startTestServer({ watch: false })
    try {
        assert.is((await fetch(`${shelf.url}/_shelf/live`)).status, 404)
        assert.is((await fetch(`${shelf.url}/_shelf/problems.html`)).status, 404)
        const home = await page('/', {}, shelf.url)
        assert.not.match(home.html, /data-live|live\.js|class="banner"/)
    } finally {
        await shelf.stop()
    }
})

test('the problems page is for the owner: a request from this machine, not from the network', async () => {
    const own = await page('/_shelf/problems.html?lang=en')
    assert.is(own.status, 200)
    assert.match(own.html, /No problems/)
    assert.match(own.headers.get('cache-control')!, /no-store/)
    const lan = lanAddresses()[0]
    if (!lan) return
    const shelf = await startShelf(
        {
            content: exampleContent,
            name: 'service',
            drafts: false,
            watch: true,
            cache: await temporaryFolder('shelf-cache-'),
        },
        { port: 0, host: '0.0.0.0' },
    )
    try {
        const remote = await page(
            '/_shelf/problems.html?lang=en',
            {},
            `http://${lan}:${shelf.port}`,
        )
        assert.is(remote.status, 403)
        assert.match(remote.html, /shown only to the owner/)
        assert.not.match(remote.html, /<table/)
    } finally {
        await shelf.close()
    }
})

test('--no-web: nothing at / but the protocol', async () => {
    const shelf = await startTestServer({ web: false })
    try {
        const home = await fetch(`${shelf.url}/`)
        assert.is(home.status, 404)
        assert.equal(await home.json(), { message: 'nothing at GET /' })
        assert.is((await page('/levels/first-steps', {}, shelf.url)).status, 404)
        assert.is((await page('/service/levels/first-steps', {}, shelf.url)).status, 200)
    } finally {
        await shelf.stop()
    }
})

test("a protocol 404 fetched by a browser has the official toolkit's empty body; the app and a tab get the message", async () => {
    const url = `${server.root}/levels/not-here`
    const app = await fetch(url)
    assert.is(app.status, 404)
    assert.equal(await app.json(), { message: 'level "not-here" not found' })
    const tab = await fetch(url, {
        headers: {
            'Sec-Fetch-Mode': 'navigate',
            'Sec-Fetch-Dest': 'document',
            'Sec-Fetch-Site': 'none',
        },
    })
    assert.equal(await tab.json(), { message: 'level "not-here" not found' })
    const fromPage = {
        'Sec-Fetch-Mode': 'cors',
        'Sec-Fetch-Site': 'same-origin',
        'Sec-Fetch-Dest': 'empty',
    }
    for (const headers of [
        fromPage,
        { ...fromPage, 'Sec-Fetch-Mode': 'same-origin' },
        { Referer: `${server.url}/levels/` },
    ]) {
        const client = await fetch(url, { headers })
        assert.is(client.status, 404)
        const body = await client.text()
        assert.is(body, '', JSON.stringify(headers))
        assert.throws(
            () => JSON.parse(body),
            "the web client's response.json() fails, so it shows its not-found view",
        )
    }
    const found = await fetch(`${server.root}/levels/first-steps`, { headers: fromPage })
    assert.is(found.status, 200, 'answers that are found are untouched')
})

test('--web-client DIR: its files, its index.html for page paths, the protocol beside it', async () => {
    const folder = await temporaryFolder('shelf-web-client-')
    await mkdir(join(folder, 'assets'))
    await writeFile(join(folder, 'index.html'), '<!doctype html><title>client</title>')
    await writeFile(join(folder, 'assets', 'app.js'), 'console.log(1)')
    const shelf = await startTestServer({ webClient: folder })
    try {
        const script = await fetch(`${shelf.url}/assets/app.js`)
        assert.is(script.status, 200)
        assert.is(await script.text(), 'console.log(1)')
        for (const path of ['/', '/levels/first-steps', '/levels/list?keywords=x']) {
            const response = await fetch(`${shelf.url}${path}`)
            assert.is(response.status, 200, path)
            assert.is(await response.text(), '<!doctype html><title>client</title>', path)
        }
        for (const path of [
            '/%2e%2e/%2e%2e/etc/passwd',
            '/assets/..%2f..%2f..%2fetc/passwd',
            '/assets/../../../etc/passwd',
        ]) {
            const outside = await rawRequest(shelf.url, path)
            assert.not.match(outside.body.toString(), /root:/, path)
        }
        assert.is((await fetch(`${shelf.root}/info`)).status, 200)
    } finally {
        await shelf.stop()
    }
    await rm(join(folder, 'index.html'))
    let error: Error | undefined
    await startTestServer({ webClient: folder }).catch((caught: Error) => (error = caught))
    assert.match(error?.message ?? '', /has no index\.html/)
    await rm(folder, { recursive: true, force: true })
})

test.run()
