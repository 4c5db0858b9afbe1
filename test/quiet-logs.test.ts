/**
 * The server log: a client that goes away in the middle of an answer is normal traffic and
 * prints nothing (a debug line with NODE_DEBUG=shelf at most); a real error prints once, with its
 * cause.
 */
import { rm } from 'node:fs/promises'
import { connect } from 'node:net'
import { format } from 'node:util'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { reportError } from '../src/http/error-log.js'
import { tinyMp3, writeTree } from './support/fixtures.js'
import { copyContent, getJson, startTestServer } from './support/server.js'

const test = suite('quiet logs')

/** Everything written to stderr and through console.error/warn while `run` runs. */
const capturedOutput = async (run: () => Promise<void>) => {
    const lines: string[] = []
    const { error, warn } = console
    const write = process.stderr.write.bind(process.stderr)
    // Formatted as the console formats it: an error with its stack and cause.
    console.error = (...args: unknown[]) => lines.push(format(...args))
    console.warn = console.error
    process.stderr.write = ((chunk: string | Uint8Array) =>
        lines.push(String(chunk)) > 0) as typeof process.stderr.write
    try {
        await run()
    } finally {
        console.error = error
        console.warn = warn
        process.stderr.write = write
    }
    return lines
}

/** Sends a GET over a raw socket and closes the connection after `bytes` bytes of the answer (0: before any). */
const leaveMidAnswer = (
    port: number,
    path: string,
    headers: Record<string, string>,
    bytes: number,
) =>
    new Promise<number>((resolve, reject) => {
        const socket = connect(port, '127.0.0.1')
        let received = 0
        socket.on('error', reject)
        socket.on('connect', () => {
            const lines = [
                `GET ${path} HTTP/1.1`,
                'Host: 127.0.0.1',
                ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
            ]
            socket.write(`${lines.join('\r\n')}\r\n\r\n`)
            if (bytes === 0) {
                socket.resetAndDestroy()
                resolve(0)
            }
        })
        socket.on('data', (chunk: Buffer) => {
            received += chunk.length
            if (received >= bytes) {
                // A reset, as a browser closing a tab or the app seeking does, not a polite end.
                socket.resetAndDestroy()
                resolve(received)
            }
        })
    })

test('clients leaving mid-answer (a streamed file, compressed and plain pages) print nothing', async () => {
    const content = await copyContent()
    // Large enough to be streamed from disk, and to fill the socket's buffers before it is read.
    const large = Buffer.concat([tinyMp3(3), Buffer.alloc(8 * 1024 * 1024, 7)])
    await writeTree(content, { 'levels/first-steps/bgm.mp3': large })
    const server = await startTestServer({ content, watch: false })
    try {
        const { body } = await getJson<{ item: { bgm: { url: string } } }>(
            `${server.root}/levels/first-steps`,
        )
        const port = Number(new URL(server.url).port)
        const output = await capturedOutput(async () => {
            for (let round = 0; round < 5; round++) {
                assert.ok(
                    (await leaveMidAnswer(port, body.item.bgm.url, {}, 64 * 1024)) >= 64 * 1024,
                )
                await leaveMidAnswer(port, body.item.bgm.url, { Range: 'bytes=1000-' }, 16 * 1024)
                await leaveMidAnswer(port, body.item.bgm.url, {}, 0)
                await leaveMidAnswer(
                    port,
                    `/service/levels/list?localization=en&round=${round}`,
                    { 'Accept-Encoding': 'gzip, deflate, br' },
                    0,
                )
                await leaveMidAnswer(
                    port,
                    `/service/levels/list?type=quick&keywords=e&round=${round}`,
                    {},
                    1,
                )
            }
            // Whatever the server reports, it reports by now.
            await new Promise((resolve) => setTimeout(resolve, 300))
        })
        assert.equal(output, [], 'nothing printed')
        // And the server still answers.
        assert.is((await getJson(`${server.root}/levels/list`)).status, 200)
    } finally {
        await server.stop()
        await rm(content, { recursive: true, force: true })
    }
})

test('a real error prints once, with its cause; a client gone prints nothing', async () => {
    const cause = new Error('the disk is on fire')
    const output = await capturedOutput(async () => {
        reportError(new Error('cannot render the page', { cause }), 'GET /service/levels/list')
        reportError(
            Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }),
            'GET /service/levels/list',
        )
        reportError(
            Object.assign(new Error('Premature close'), { code: 'ERR_STREAM_PREMATURE_CLOSE' }),
        )
    })
    assert.is(output.length, 1, output.join('\n'))
    assert.match(output[0]!, /GET \/service\/levels\/list/)
    assert.match(output[0]!, /cannot render the page/)
    assert.match(output[0]!, /at .*quiet-logs\.test\.ts/, 'with its stack')
    assert.match(output[0]!, /the disk is on fire/, 'with its cause')
})

test.run()
