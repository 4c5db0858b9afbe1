/**
 * A request refused before its body is read is answered, and its connection survives: the
 * client, which sends the whole body before it reads, gets the 4xx and its message, not a reset,
 * and the connection takes the next request.
 */
import { connect, type Socket } from 'node:net'
import { rm } from 'node:fs/promises'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { sha1, tinyPng } from './support/fixtures.js'
import { signInPlayer, type Player } from './support/player.js'
import { createTestSigner } from './support/signing.js'
import { copyContent, startTestServer, type TestServer } from './support/server.js'

const test = suite('early refusals reach the client')
let content: string
let server: TestServer
let alice: Player

test.before(async () => {
    content = await copyContent()
    const signer = await createTestSigner()
    server = await startTestServer({ content, signIn: { signatureKey: signer.publicKeyFile } })
    alice = await signInPlayer(server, signer, 'alice-id', 'Alice')
})

test.after(async () => {
    await server?.stop()
    await rm(content, { recursive: true, force: true })
})

type RawAnswer = { status: number; body: string }

/** One HTTP/1.1 connection, written to and read from by hand: answers in the order they come. */
const connection = () => {
    const socket: Socket = connect(server.port, '127.0.0.1')
    let received = Buffer.alloc(0)
    let failure: Error | undefined
    let wake = () => {}
    socket.on('data', (chunk: Buffer) => {
        received = Buffer.concat([received, chunk])
        wake()
    })
    socket.on('error', (error) => ((failure = error), wake()))
    socket.on('close', () => wake())
    const next = async (): Promise<RawAnswer> => {
        for (;;) {
            if (failure) throw failure
            const end = received.indexOf('\r\n\r\n')
            if (end >= 0) {
                const head = received.subarray(0, end).toString('latin1')
                const length = Number(/content-length: (\d+)/i.exec(head)?.[1] ?? 0)
                if (received.length >= end + 4 + length) {
                    const body = received.subarray(end + 4, end + 4 + length).toString('utf8')
                    received = received.subarray(end + 4 + length)
                    return { status: Number(head.split(' ')[1]), body }
                }
            }
            if (socket.destroyed) throw new Error('the connection closed before an answer')
            await new Promise<void>((resolve) => (wake = resolve))
        }
    }
    return { socket, next }
}

const headers = (lines: Record<string, string | number>) =>
    Object.entries(lines)
        .map(([name, value]) => `${name}: ${value}\r\n`)
        .join('')

/** Sends a request whose body is written whole, before anything is read; then asks for /levels/info on the same connection. */
const refusedThenNext = async (
    path: string,
    lines: Record<string, string | number>,
    body: Buffer,
    chunked = false,
) => {
    const { socket, next } = connection()
    socket.write(
        `POST /service${path} HTTP/1.1\r\nHost: localhost\r\n${headers({
            ...lines,
            ...(chunked ? { 'Transfer-Encoding': 'chunked' } : { 'Content-Length': body.length }),
        })}\r\n`,
    )
    if (chunked) {
        for (let at = 0; at < body.length; at += 64 * 1024) {
            const part = body.subarray(at, at + 64 * 1024)
            socket.write(`${part.length.toString(16)}\r\n`)
            socket.write(part)
            socket.write('\r\n')
        }
        socket.write('0\r\n\r\n')
    } else socket.write(body)
    const refused = await next()
    socket.write('GET /service/levels/info HTTP/1.1\r\nHost: localhost\r\n\r\n')
    const following = await next()
    socket.destroy()
    return { refused, following }
}

const uploadKey = async (title: string) => {
    const thumbnail = tinyPng(title.length, 7, 7)
    const submit = await alice.submit('/posts/create', {
        type: 'post',
        title,
        thumbnail: sha1(thumbnail),
    })
    assert.is(submit.status, 200, submit.body.message)
    return submit.body.key
}

test('an upload declared past the limit: 413 with its message, and the connection goes on', async () => {
    const { refused, following } = await refusedThenNext(
        '/posts/upload',
        {
            'Content-Type': 'multipart/form-data; boundary=b',
            'Service-Upload-Key': await uploadKey('Declared'),
            'Service-Session': alice.session,
        },
        Buffer.alloc(12 * 1024 * 1024, 'a'),
    )
    assert.is(refused.status, 413)
    assert.match(JSON.parse(refused.body).message, /larger than/)
    assert.is(following.status, 200)
})

test('an upload past the limit sent in chunks (no length told): 413, and the connection goes on', async () => {
    const { refused, following } = await refusedThenNext(
        '/posts/upload',
        {
            'Content-Type': 'multipart/form-data; boundary=never-sent',
            'Service-Upload-Key': await uploadKey('Chunked'),
            'Service-Session': alice.session,
        },
        Buffer.alloc(12 * 1024 * 1024, 'a'),
        true,
    )
    assert.is(refused.status, 413)
    assert.match(JSON.parse(refused.body).message, /larger than/)
    assert.is(following.status, 200)
})

test('a create body past 1 MB: 413 with its message, and the connection goes on', async () => {
    const { refused, following } = await refusedThenNext(
        '/posts/create',
        { 'Content-Type': 'application/json', 'Service-Session': alice.session },
        Buffer.alloc(1200 * 1024, 'a'),
    )
    assert.is(refused.status, 413)
    assert.match(JSON.parse(refused.body).message, /larger than 1mb/)
    assert.is(following.status, 200)
})

test('a deeply nested JSON body: 400 with its message, and the connection goes on', async () => {
    const depth = 200_000
    const { refused, following } = await refusedThenNext(
        '/posts/create',
        { 'Content-Type': 'application/json', 'Service-Session': alice.session },
        Buffer.from(`{"values":${'['.repeat(depth)}${']'.repeat(depth)}}`),
    )
    assert.is(refused.status, 400)
    assert.ok(JSON.parse(refused.body).message)
    assert.is(following.status, 200)
})

test.run()
