/**
 * The idle timeout cuts clients that stall, never a request waiting for the server's own answer
 * (a write queued behind others' commits on a busy machine once lost its answer that way).
 */
import { createServer, type Server } from 'node:http'
import { once } from 'node:events'
import { connect, type AddressInfo } from 'node:net'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { closeIdleConnections } from '../src/http/client-timeouts.js'

const idleMs = 300
const test = suite('idle connections')
let server: Server
let port: number

test.before(async () => {
    // Answers after four idle timeouts, as a write waiting on git does under load.
    server = createServer((request, response) => {
        request.resume()
        request.on('end', () => setTimeout(() => response.end('done'), idleMs * 4))
    })
    closeIdleConnections(server, idleMs)
    server.listen(0, '127.0.0.1')
    await once(server, 'listening')
    port = (server.address() as AddressInfo).port
})

test.after(async () => {
    server?.closeAllConnections()
    server?.close()
})

test('a request waiting for its answer longer than the idle timeout gets it', async () => {
    const started = Date.now()
    const response = await fetch(`http://127.0.0.1:${port}/`, { method: 'POST', body: 'write' })
    assert.is(response.status, 200)
    assert.is(await response.text(), 'done')
    assert.ok(Date.now() - started >= idleMs * 4)
})

/** Resolves with how long the server kept a raw connection open after `send`. */
const openFor = async (send: string) => {
    const socket = connect(port, '127.0.0.1')
    await once(socket, 'connect')
    const started = Date.now()
    socket.write(send)
    socket.resume()
    await once(socket, 'close')
    return Date.now() - started
}

test('a body that stops coming is cut at the idle timeout', async () => {
    const ms = await openFor(
        'POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nonly a part of it',
    )
    assert.ok(ms < idleMs * 4, `closed after ${ms} ms, before any answer was due`)
})

test('a connection left open after its answer is still closed, at the keep-alive timeout', async () => {
    const ms = await openFor('POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\n\r\nx')
    assert.ok(ms >= idleMs * 4, 'the answer came first')
    // Node's keepAliveTimeout (5 s) takes over from the idle timeout once an answer is sent.
    assert.ok(
        ms < idleMs * 4 + server.keepAliveTimeout + 5_000,
        `closed ${ms} ms after the request`,
    )
})

test.run()
