/**
 * One server answers the protocol under both names at once: `/sonolus/…` with `Sonolus-*`
 * headers, as the app asks, and `/service/…` with `Service-*` headers, as the spec names it.
 * Each name's answers link under that name, and its sessions travel in its own header.
 */
import type { LevelItem, ServerInfo, ServerItemDetails } from '@sonolus/core'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { answerOf } from './support/player.js'
import {
    authenticateBody,
    createTestSigner,
    postSigned,
    signed,
    testProfile,
    type TestSigner,
} from './support/signing.js'
import { getJson, startTestServer, type TestServer } from './support/server.js'

const test = suite('both protocol names')

let server: TestServer
let signer: TestSigner

const names = [
    { name: 'sonolus', prefix: 'Sonolus', other: 'Service' },
    { name: 'service', prefix: 'Service', other: 'Sonolus' },
] as const

test.before(async () => {
    signer = await createTestSigner()
    // The chosen name is sonolus (the default of `shelf serve`); service must answer all the same.
    server = await startTestServer({
        name: 'sonolus',
        signIn: { signatureKey: signer.publicKeyFile },
    })
})

test.after(async () => {
    await server.stop()
})

for (const { name, prefix, other } of names) {
    test(`/${name}/info answers with ${prefix}-Version, and no ${other}-Version`, async () => {
        const info = await getJson<ServerInfo>(`${server.url}/${name}/info`)
        assert.is(info.status, 200)
        assert.ok(info.body.title, 'a server info')
        assert.ok(info.headers.get(`${prefix}-Version`), `${prefix}-Version is set`)
        assert.is(info.headers.get(`${other}-Version`), null)
    })

    test(`/${name}/ answers link their resources under /${name}/`, async () => {
        const details = await getJson<ServerItemDetails<LevelItem>>(
            `${server.url}/${name}/levels/first-steps`,
        )
        assert.is(details.status, 200)
        const cover = details.body.item.cover.url!
        assert.match(new URL(cover, server.url).pathname, new RegExp(`^/${name}/repository/`))
        const bytes = await fetch(new URL(cover, server.url))
        assert.is(bytes.status, 200, 'the resource is served')
        assert.ok(bytes.headers.get(`${prefix}-Version`))
        await bytes.arrayBuffer()
    })

    test(`signing in under /${name}/ uses ${prefix}-Signature, and the session goes in ${prefix}-Session`, async () => {
        const request = await signed(
            signer,
            authenticateBody(server.url, testProfile(`${name}-player`, 'Both')),
        )
        const refused = await answerOf(
            await postSigned(
                `${server.url}/${name}/authenticate`,
                request,
                {},
                `${other}-Signature`,
            ),
        )
        assert.is(refused.status, 401, `${other}-Signature is not read under /${name}/`)
        const signIn = await answerOf<{ session: string }>(
            await postSigned(
                `${server.url}/${name}/authenticate`,
                request,
                {},
                `${prefix}-Signature`,
            ),
        )
        assert.is(signIn.status, 200, signIn.body.message)
        const forged = { [`${prefix}-Session`]: `${signIn.body.session}x` }
        const rejected = await fetch(`${server.url}/${name}/info`, { headers: forged })
        assert.is(rejected.status, 401, `a session is read from ${prefix}-Session`)
        await rejected.arrayBuffer()
        const accepted = await fetch(`${server.url}/${name}/info`, {
            headers: { [`${prefix}-Session`]: signIn.body.session },
        })
        assert.is(accepted.status, 200)
        await accepted.arrayBuffer()
    })
}

test('pages link to the app under the chosen name, and say nothing of --name', async () => {
    const page = await fetch(`${server.url}/levels/first-steps`)
    const html = await page.text()
    assert.is(page.status, 200)
    assert.match(html, /https:\/\/open\.sonolus\.com\/[^"]+\/levels\/first-steps/)
    assert.not.match(html, /--name sonolus/)
})

test.run()
