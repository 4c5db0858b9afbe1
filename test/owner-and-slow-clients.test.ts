/**
 * `/_shelf/problems` is the owner's: requests from the server's machine that no proxy forwarded,
 * or with the owner token. Slow clients are cut off by deliberate timeouts, not Node's defaults.
 */
import type { IncomingMessage } from 'node:http'
import { connect } from 'node:net'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { parseServeArguments } from '../src/cli/arguments.js'
import { isOwnerRequest } from '../src/http/owner-access.js'
import { getJson, startTestServer, type TestServer } from './support/server.js'

const test = suite('owner pages and slow clients')
const ownerToken = 'a-long-owner-token-for-the-test'
let server: TestServer

test.before(async () => {
    server = await startTestServer({
        ownerToken,
        clientTimeouts: { headersMs: 500, requestMs: 1_500, idleMs: 3_000 },
    })
})

test.after(async () => {
    await server?.stop()
})

const problems = (headers: Record<string, string> = {}) =>
    getJson<{ message?: string; problems?: unknown[] }>(`${server.url}/_shelf/problems`, {
        headers,
    })

test('problems: from this machine, yes; through a proxy, only with the owner token', async () => {
    const local = await problems()
    assert.is(local.status, 200)
    assert.ok(Array.isArray(local.body.problems))
    assert.is(local.headers.get('cache-control'), 'no-store')
    const forwarded = await problems({ 'X-Forwarded-For': '203.0.113.5' })
    assert.is(forwarded.status, 403)
    assert.match(forwarded.body.message!, /shown to the server owner only/)
    assert.not.ok('problems' in forwarded.body)
    assert.is(
        (
            await problems({
                'X-Forwarded-For': '203.0.113.5',
                Authorization: `Bearer ${ownerToken}`,
            })
        ).status,
        200,
    )
    assert.is(
        (
            await problems({
                'X-Forwarded-For': '203.0.113.5',
                Authorization: `Bearer ${ownerToken}x`,
            })
        ).status,
        403,
    )
})

test('the rule itself: a remote address needs the token, whatever it claims', () => {
    const request = (remoteAddress: string, headers: Record<string, string> = {}) =>
        ({ socket: { remoteAddress }, headers }) as unknown as IncomingMessage
    const withToken = { ownerToken }
    assert.not.ok(isOwnerRequest(request('203.0.113.5'), withToken))
    assert.not.ok(isOwnerRequest(request('203.0.113.5', { host: 'localhost' }), withToken))
    assert.not.ok(
        isOwnerRequest(request('203.0.113.5', { authorization: `Bearer ${ownerToken}` }), {}),
        'no token configured: none accepted',
    )
    assert.ok(
        isOwnerRequest(
            request('203.0.113.5', { authorization: `Bearer ${ownerToken}` }),
            withToken,
        ),
    )
    assert.ok(isOwnerRequest(request('::1'), {}))
    assert.ok(isOwnerRequest(request('::ffff:127.0.0.1'), {}))
    assert.not.ok(isOwnerRequest(request('127.0.0.1', { forwarded: 'for=203.0.113.5' }), {}))
})

test("a public server, or one behind a proxy, takes no request as the owner's for its address: only the token", () => {
    const request = (remoteAddress: string, headers: Record<string, string> = {}) =>
        ({ socket: { remoteAddress }, headers }) as unknown as IncomingMessage
    for (const access of [
        { ownerToken, address: 'https://example.com' },
        { ownerToken, trustProxy: true },
    ]) {
        assert.not.ok(isOwnerRequest(request('127.0.0.1'), access), JSON.stringify(access))
        assert.not.ok(isOwnerRequest(request('::1'), access))
        assert.ok(
            isOwnerRequest(request('127.0.0.1', { authorization: `Bearer ${ownerToken}` }), access),
        )
    }
})

/** Opens a connection, sends `bytes` and nothing more, and resolves with what came back once the server closed it. */
const stall = (bytes: string) =>
    new Promise<{ answer: string; ms: number }>((resolve, reject) => {
        const started = Date.now()
        const socket = connect(server.port, '127.0.0.1', () => socket.write(bytes))
        let answer = ''
        socket.setEncoding('utf8').on('data', (chunk: string) => (answer += chunk))
        socket.on('close', () => resolve({ answer, ms: Date.now() - started }))
        socket.on('error', reject)
        // Far past every timeout: the server must have closed by then.
        setTimeout(() => {
            socket.destroy()
            reject(new Error(`still open after 10 s; got: ${answer}`))
        }, 10_000).unref()
    })

test('headers that never finish: 408 and closed at the headers timeout', async () => {
    const { answer } = await stall('GET /service/info HTTP/1.1\r\nHost: localhost\r\n')
    assert.match(answer, /^HTTP\/1\.1 408/)
})

test('a body that never finishes: closed at the request timeout', async () => {
    const { answer } = await stall(
        'POST /service/authenticate HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"type":',
    )
    assert.not.match(answer, /^HTTP\/1\.1 200/)
})

test('a connection that never sends anything is closed', async () => {
    const { answer } = await stall('')
    assert.ok(answer === '' || answer.startsWith('HTTP/1.1 408'), answer)
})

test('the owner token comes from --owner-token, else $SHELF_OWNER_TOKEN', () => {
    assert.is(
        parseServeArguments(['--owner-token', 'flag-token'], { SHELF_OWNER_TOKEN: 'env-token' })
            .options.ownerToken,
        'flag-token',
    )
    assert.is(
        parseServeArguments([], { SHELF_OWNER_TOKEN: 'env-token' }).options.ownerToken,
        'env-token',
    )
    assert.is(parseServeArguments([], {}).options.ownerToken, undefined)
})

test.run()
