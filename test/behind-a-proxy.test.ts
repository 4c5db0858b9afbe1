/**
 * --trust-proxy: the client's address for the per-address write limits is the last one of
 * X-Forwarded-For (the one the proxy added), never one the client wrote before it.
 */
import { readFile, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { answerOf } from './support/player.js'
import {
    authenticateBody,
    createTestSigner,
    postSigned,
    signed,
    testProfile,
} from './support/signing.js'
import { copyContent, startTestServer, type TestServer } from './support/server.js'

const test = suite('behind a proxy')
let content: string
let server: TestServer
let signer: Awaited<ReturnType<typeof createTestSigner>>

test.before(async () => {
    signer = await createTestSigner()
    content = await copyContent()
    const serverYaml = join(content, 'server.yaml')
    await writeFile(
        serverYaml,
        (await readFile(serverYaml, 'utf8')).replace(
            /^limits:\n/m,
            'limits:\n  comments: { perPlayer: 100, perAddress: 2, perSeconds: 86400 }\n',
        ),
    )
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

const session = async (id: string) => {
    const answer = await answerOf<{ session: string }>(
        await postSigned(
            `${server.root}/authenticate`,
            await signed(signer, authenticateBody(server.url, testProfile(id, id))),
        ),
    )
    assert.is(answer.status, 200, answer.body.message)
    return answer.body.session
}

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
