/**
 * --trust-proxy: the client's address for the per-address write limits is the last one of
 * X-Forwarded-For (the one the proxy added), never one the client wrote before it.
 */
import { rm } from 'node:fs/promises'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { answerOf, signInPlayer } from './support/player.js'
import { setWriteLimit } from './support/write-limits.js'
import { createTestSigner } from './support/signing.js'
import { copyContent, startTestServer, type TestServer } from './support/server.js'

const test = suite('behind a proxy')
let content: string
let server: TestServer
let signer: Awaited<ReturnType<typeof createTestSigner>>

test.before(async () => {
    signer = await createTestSigner()
    content = await copyContent()
    await setWriteLimit(content, 'comments', '{ perPlayer: 100, perAddress: 2, perSeconds: 86400 }')
    server = await startTestServer({
        content,
        trustProxy: true,
        signIn: { signatureKey: signer.publicKeyFile },
    })
})

test.after(async () => {
    await server?.stop()
    await rm(content, { recursive: true, force: true })
})

const session = async (id: string) => (await signInPlayer(server, signer, id, id)).session

const comment = async (player: string, forwardedFor: string) =>
    answerOf(
        await fetch(`${server.root}/levels/city-lights/community/submit`, {
            method: 'POST',
            headers: {
                'Content-Type': 'application/json',
                'Service-Session': player,
                'X-Forwarded-For': forwardedFor,
            },
            body: JSON.stringify({ values: 'type=comment&content=hello' }),
        }),
    )

test('the address is the one the proxy added: its limit is its own, and a client cannot claim another', async () => {
    const [alice, bob] = [await session('alice-id'), await session('bob-id')]
    assert.is((await comment(alice, '203.0.113.1')).status, 200)
    assert.is((await comment(bob, '203.0.113.1')).status, 200)
    const crowded = await comment(bob, '203.0.113.1')
    assert.is(crowded.status, 429)
    assert.match(crowded.body.message!, /players at your address/)
    // Another client address has its own count…
    assert.is((await comment(bob, '203.0.113.2')).status, 200)
    // …and what a client writes before the proxy's address changes nothing.
    const claimed = await comment(alice, '198.51.100.9, 203.0.113.1')
    assert.is(claimed.status, 429)
})

test.run()
