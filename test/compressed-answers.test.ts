/**
 * Compressed answers over real HTTP: each Accept-Encoding gets the representation it asks for,
 * with its own Content-Encoding, `Vary: Accept-Encoding`, a strong ETag per representation and a
 * 304 on a match, whether the answer is new, kept for guests, kept for a signed-in player or made
 * for one typed search.
 */
import etagOf from 'etag'
import { brotliDecompressSync, gunzipSync } from 'node:zlib'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import type { Context } from 'koa'
import { EncodedAnswer, encodingFor } from '../src/http/encoded-answer.js'
import type { EncodedState } from '../src/http/encode-answers.js'
import { respondWithItems } from '../src/http/respond.js'
import { signInPlayer, type Player } from './support/player.js'
import { rawRequest, type RawResponse } from './support/http.js'
import { createTestSigner } from './support/signing.js'
import { startTestServer, type TestServer } from './support/server.js'

const test = suite('compressed answers')
let server: TestServer
let player: Player

test.before(async () => {
    const signer = await createTestSigner()
    server = await startTestServer({ signIn: { signatureKey: signer.publicKeyFile } })
    player = await signInPlayer(server, signer, 'c0ffee', 'Carol')
})

test.after(async () => {
    await server.stop()
})

const raw = (path: string, headers: Record<string, string> = {}) =>
    rawRequest(server.url, path, { headers })

/** The bytes a response stands for, decoded by its Content-Encoding. */
const decoded = (response: RawResponse) => {
    const encoding = response.header('content-encoding')
    if (encoding === 'br') return brotliDecompressSync(response.body)
    if (encoding === 'gzip') return gunzipSync(response.body)
    assert.is(encoding, undefined, 'an encoding this test knows')
    return response.body
}

/** Accept-Encoding headers and the encoding each must get. */
const asked: [string | undefined, string | undefined][] = [
    [undefined, undefined],
    ['identity', undefined],
    ['gzip', 'gzip'],
    ['br', 'br'],
    ['gzip, deflate, br', 'br'],
    ['br;q=0.5, gzip', 'gzip'],
    ['deflate', undefined],
    ['br;q=0, gzip;q=0', undefined],
]

/** Asks `path` with every Accept-Encoding twice (the second may come from what the server kept) and checks each answer. */
const checkRepresentations = async (path: string, extra: Record<string, string> = {}) => {
    const plain = await raw(path, extra)
    assert.is(plain.status, 200, path)
    assert.ok(plain.body.length > 1024, `${path}: large enough to be compressed`)
    const etags = new Map<string | undefined, string>()
    for (const [acceptEncoding, expected] of asked) {
        const headers = {
            ...extra,
            ...(acceptEncoding === undefined ? {} : { 'accept-encoding': acceptEncoding }),
        }
        for (const round of ['first', 'again']) {
            const what = `${path}, Accept-Encoding ${acceptEncoding ?? '(none)'}, ${round}`
            const response = await raw(path, headers)
            assert.is(response.status, 200, what)
            assert.is(response.header('content-encoding'), expected, what)
            assert.match(response.header('vary') ?? '', /accept-encoding/i, what)
            assert.match(response.header('content-type') ?? '', /^application\/json/, what)
            assert.is(Number(response.header('content-length')), response.body.length, what)
            assert.ok(decoded(response).equals(plain.body), `${what}: the same JSON`)
            const etag = response.header('etag')!
            assert.match(etag, /^"[^"]+"$/, `${what}: a strong ETag`)
            if (etags.has(expected))
                assert.is(etag, etags.get(expected), `${what}: one ETag per representation`)
            etags.set(expected, etag)

            const revalidated = await raw(path, { ...headers, 'if-none-match': etag })
            assert.is(revalidated.status, 304, `${what}: 304 on its own ETag`)
            assert.is(revalidated.body.length, 0)
            assert.is(revalidated.header('etag'), etag)
            assert.is(
                revalidated.header('content-encoding'),
                undefined,
                `${what}: a 304 has no body to encode`,
            )
            assert.match(revalidated.header('vary') ?? '', /accept-encoding/i)
        }
    }
    // Three representations, three validators: a client holding one never takes another for it.
    assert.is(new Set(etags.values()).size, 3, `${path}: ${[...etags.values()].join(' ')}`)
    for (const [acceptEncoding, expected] of asked) {
        const headers = {
            ...extra,
            ...(acceptEncoding === undefined ? {} : { 'accept-encoding': acceptEncoding }),
        }
        for (const [other, etag] of etags) {
            if (other === expected) continue
            const response = await raw(path, { ...headers, 'if-none-match': etag })
            assert.is(
                response.status,
                200,
                `${path}, Accept-Encoding ${acceptEncoding}: the ETag of ${other ?? 'identity'} is another representation's`,
            )
            assert.is(response.header('content-encoding'), expected)
        }
    }
}

test("a guest's kept answer (a list, a details page) in every encoding", async () => {
    await checkRepresentations('/service/levels/list?localization=en')
    await checkRepresentations('/service/levels/first-steps?localization=ja')
})

test('a typed search, made for each request, in every encoding', async () => {
    await checkRepresentations('/service/levels/list?type=quick&keywords=e')
})

test("a list page put together from its items' stored bytes holds their text as written, in every encoding", async () => {
    // Japanese titles: a page of items joined as bytes must keep every character whole.
    for (const path of [
        '/service/levels/list?localization=ja',
        '/service/levels/list?localization=ja&type=quick&keywords=e',
    ]) {
        await checkRepresentations(path)
        for (const acceptEncoding of ['gzip, deflate, br', 'gzip']) {
            const response = await raw(path, { 'accept-encoding': acceptEncoding })
            const page = JSON.parse(decoded(response).toString('utf8')) as {
                items: { name: string; title: string }[]
                pageCount: number
            }
            assert.ok(page.pageCount >= 1, path)
            if (path.endsWith('=ja'))
                assert.ok(
                    page.items.some((item) => item.name === 'morning-dew' && item.title === '朝露'),
                    `${path}: the Japanese title whole`,
                )
            assert.equal(
                page.items.map((item) => item.name).length,
                new Set(page.items.map((item) => item.name)).size,
            )
        }
    }
})

test("a signed-in player's answers (kept per player inside the app) in every encoding", async () => {
    await checkRepresentations('/service/levels/list?localization=en', {
        'service-session': player.session,
    })
})

test('the first request of an answer in each encoding, in every order, gets the same bytes', async () => {
    for (const order of [
        ['br', 'gzip', 'identity'],
        ['identity', 'gzip', 'br'],
        ['gzip', 'br', 'identity'],
    ]) {
        // A new URL each time: nothing kept for it yet.
        const path = `/service/levels/list?localization=en&order=${order.join('-')}`
        const bodies = new Map<string, Buffer>()
        for (const encoding of [...order, ...order]) {
            const response = await raw(path, { 'accept-encoding': encoding })
            assert.is(
                response.header('content-encoding'),
                encoding === 'identity' ? undefined : encoding,
            )
            const known = bodies.get(encoding)
            if (known)
                assert.ok(response.body.equals(known), `${path} ${encoding}: the same bytes kept`)
            bodies.set(encoding, response.body)
        }
    }
})

test('small answers go as they are, but still vary by Accept-Encoding; resources never do', async () => {
    const small = await raw('/service/levels/result/info', {
        'accept-encoding': 'gzip, deflate, br',
    })
    assert.is(small.status, 200)
    assert.ok(small.body.length < 1024, `${small.body.length} bytes`)
    assert.is(small.header('content-encoding'), undefined)
    assert.match(small.header('vary') ?? '', /accept-encoding/i)
    const details = (await raw('/service/levels/first-steps')).json<{
        item: { cover: { url: string; hash: string } }
    }>()
    const cover = await raw(details.item.cover.url, { 'accept-encoding': 'gzip, deflate, br' })
    assert.is(cover.status, 200)
    assert.is(cover.header('content-encoding'), undefined, 'a resource is sent as stored')
    assert.is(
        cover.header('etag'),
        `"${details.item.cover.hash}"`,
        'named by its hash, in any encoding',
    )
    assert.is(cover.header('vary'), undefined)
})

test('each encoding is made once per answer, and what a cache counts covers them', () => {
    const body = Buffer.from(
        JSON.stringify({
            items: Array.from({ length: 200 }, (_, index) => ({
                name: `level-${index}`,
                title: 'Level',
            })),
        }),
    )
    const answer = new EncodedAnswer(body, '"abc"', true).keep()
    const br = answer.for('gzip, deflate, br')
    assert.is(br.encoding, 'br')
    assert.is(answer.for('br'), br, 'the same representation, not compressed again')
    assert.ok(brotliDecompressSync(br.body).equals(body))
    assert.is(br.etag, '"abc-br"')
    const gzip = answer.for('gzip')
    assert.is(gzip.encoding, 'gzip')
    assert.ok(gunzipSync(gzip.body).equals(body))
    assert.is(answer.for('identity').body, body)
    assert.ok(
        body.length + br.body.length + gzip.body.length <= answer.keptBytes,
        `every representation (${body.length + br.body.length + gzip.body.length} bytes) within what a cache counts (${answer.keptBytes})`,
    )
    const text = new EncodedAnswer(body, 'W/"abc"', false)
    assert.is(text.for('br').encoding, 'identity', 'not text: as it is')
    assert.equal(
        // Nothing acceptable (identity;q=0 alone) still gets the bytes as they are rather than no answer.
        ['', 'gzip;q=1, br;q=0.9', '*', 'identity;q=0', 'BR'].map(encodingFor),
        ['identity', 'gzip', 'br', 'identity', 'br'],
    )
})

test('an answer of parts: the bytes and ETag of the parts as one, each encoding made from them whenever it is asked', () => {
    const partsOf = (word: string, count: number) =>
        Array.from({ length: count }, (_, index) =>
            Buffer.from(`{"name":"${word}-${index}","title":"${word} 朝露 ${index}"},`),
        )
    // Larger than the buffer parts are joined in (1 MiB) as well as smaller.
    for (const count of [300, 30_000]) {
        const first = partsOf('first', count)
        const second = partsOf('second', count)
        const a = new EncodedAnswer(first, undefined, true)
        const b = new EncodedAnswer(second, undefined, true)
        const whole = (parts: Buffer[]) => new EncodedAnswer(Buffer.concat(parts), undefined, true)
        // Each answer's encodings are made after the other's parts were joined: neither takes the other's bytes.
        const bGzip = b.for('gzip')
        const aBr = a.for('br')
        assert.ok(brotliDecompressSync(aBr.body).equals(Buffer.concat(first)), `${count}: br`)
        assert.ok(gunzipSync(bGzip.body).equals(Buffer.concat(second)), `${count}: gzip`)
        assert.is(aBr.etag, `${whole(first).identity.etag.slice(0, -1)}-br-fast"`)
        // Made as one buffer only now, when asked for as they are.
        assert.ok(a.for(undefined).body.equals(Buffer.concat(first)), 'as they are')
        assert.is(a.identity.etag, whole(first).identity.etag, 'the ETag of the bytes')
        assert.is(a.keptBytes, whole(first).keptBytes)
    }
})

test('bytes compressed for one request are compressed once: the next answer of the same ETag is sent them, a kept answer its own', () => {
    const body = Buffer.from(
        JSON.stringify({ items: Array.from({ length: 300 }, (_, index) => `once-${index}`) }),
    )
    const etag = etagOf(body)
    const first = new EncodedAnswer(body, etag, true).for('br')
    // Another request's answer of the same bytes, made from parts as a list page is.
    const again = new EncodedAnswer([body.subarray(0, 50), body.subarray(50)], etag, true)
    assert.is(again.for('br'), first, 'the representation made for the first request')
    const kept = new EncodedAnswer(body, etag, true).keep().for('br')
    assert.is.not(
        kept.body,
        first.body,
        'a kept answer is compressed for many requests, on its own',
    )
    assert.is.not(kept.etag, first.etag, 'other bytes, another validator')
    assert.ok(brotliDecompressSync(kept.body).equals(body))
    const other = Buffer.from(body.toString().replace('once-7', 'once-8'))
    const otherBr = new EncodedAnswer(other, etagOf(other), true).for('br')
    assert.ok(brotliDecompressSync(otherBr.body).equals(other), 'other bytes, their own')
})

test("a list answer's ETag is its bytes': equal for equal items and rest, other for any other byte, order or rest", () => {
    const itemOf = (name: string, title: string) => [
        Buffer.from(`{"name":"${name}","title":"${title}","engine":`),
        Buffer.from('{"name":"shared-engine"}'),
        Buffer.from('}'),
    ]
    const answerOf = (items: Buffer[][], rest: object) => {
        const ctx = { state: {} } as unknown as Context
        respondWithItems(ctx, rest, items)
        const answer = (ctx.state as EncodedState).encodedAnswer!
        const { body, etag } = answer.identity
        assert.equal(JSON.parse(body.toString()), {
            items: items.map((parts) => JSON.parse(Buffer.concat(parts).toString())),
            ...rest,
        })
        assert.match(
            etag,
            new RegExp(`^"${body.length.toString(16)}-[^"]{27}"$`),
            'length and hash',
        )
        return etag
    }
    const a = itemOf('a', 'Alpha 朝露')
    const b = itemOf('b', 'Beta')
    const etag = answerOf([a, b], { pageCount: 2 })
    // The same bytes made again from other buffers, as after the renderer dropped and re-made them.
    assert.is(answerOf([itemOf('a', 'Alpha 朝露'), itemOf('b', 'Beta')], { pageCount: 2 }), etag)
    const others = [
        answerOf([a, itemOf('b', 'Betb')], { pageCount: 2 }),
        answerOf([b, a], { pageCount: 2 }),
        answerOf([a, b], { pageCount: 3 }),
        answerOf([a], { pageCount: 2 }),
        answerOf([a, b, a], { pageCount: 2 }),
        answerOf([a, b], {}),
    ]
    assert.is(new Set([etag, ...others]).size, others.length + 1, others.join(' '))
})

test.run()
