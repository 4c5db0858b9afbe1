/**
 * E2 sign-in with a keypair made for the test, every way a signed request is refused, and
 * sessions: accepted, expired, tampered, shared by replicas, kept across a restart, and asked
 * for by `requireAuthentication`.
 */
import { readFile, rm, stat, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { AcceptedAddresses, lanAddresses } from '../src/auth/addresses.js'
import { assertJsonError } from './support/http.js'
import { assertShape } from './support/response-shapes.js'
import {
    authenticateBody,
    createTestSigner,
    postSigned,
    signed,
    testProfile,
    type TestSigner,
} from './support/signing.js'
import {
    copyContent,
    getJson,
    startTestServer,
    temporaryFolder,
    type TestServer,
} from './support/server.js'

const test = suite('sign-in and sessions')
let signer: TestSigner
let server: TestServer
/** The address the app would sign: the one this test server is reached at. */
let address: string

test.before(async () => {
    assertShape('ServerMessage', {})
    signer = await createTestSigner()
    server = await startTestServer({ signIn: { signatureKey: signer.publicKeyFile } })
    address = server.url
})

test.after(async () => {
    await server?.stop()
})

const authenticate = async (
    target: TestServer,
    body: Record<string, unknown>,
    headers?: Record<string, string>,
) => {
    const response = await postSigned(
        `${target.root}/authenticate`,
        await signed(signer, body),
        headers,
    )
    return {
        status: response.status,
        headers: response.headers,
        body: (await response.json()) as { session: string; expiration: number; message?: string },
    }
}

const signIn = async (target = server, id = 'user-1') => {
    const { status, body } = await authenticate(
        target,
        authenticateBody(target.url, testProfile(id)),
    )
    assert.is(status, 200, body.message)
    return body.session
}

test('a valid sign-in answers a session that expires within 30 minutes', async () => {
    const before = Date.now()
    const { status, headers, body } = await authenticate(
        server,
        authenticateBody(address, testProfile('user-1')),
    )
    assert.is(status, 200, body.message)
    assertShape('ServerAuthenticateResponse', body)
    assert.ok(body.session.length > 20)
    assert.ok(
        body.expiration > before && body.expiration <= Date.now() + 30 * 60_000,
        `expiration ${body.expiration}`,
    )
    assert.is(headers.get('service-version') !== null, true)
})

test('without --address, the addresses the server is reached at are accepted', async () => {
    assert.equal(
        server.addresses,
        [address],
        'listening on 127.0.0.1 only, that is the one address',
    )
    // Listening on every interface (the default of `shelf serve`), each address printed at start-up.
    const everywhere = new AcceptedAddresses(undefined, { port: 3000 })
    for (const expected of [
        'http://localhost:3000',
        'http://127.0.0.1:3000',
        'http://[::1]:3000',
        ...lanAddresses().map((lan) => `http://${lan}:3000`),
    ]) {
        assert.ok(everywhere.accepts(expected), expected)
    }
    assert.not.ok(everywhere.accepts('http://localhost:3001'), 'another port')
    assert.not.ok(everywhere.accepts('https://localhost:3000'), 'another scheme')
    assert.match(everywhere.explainRefusal('https://shelf.example'), /--address/)
})

test('rejections: each failed check is a 401 whose message says which', async () => {
    const good = () => authenticateBody(address, testProfile('user-1'))
    const cases: [string, Record<string, unknown>, RegExp][] = [
        [
            'wrong type',
            { ...good(), type: 'authenticateMultiplayer' },
            /type must be "authenticateServer"/,
        ],
        [
            'wrong address',
            { ...good(), address: 'https://elsewhere.test' },
            /address "https:\/\/elsewhere.test"/,
        ],
        ['stale time', { ...good(), time: Date.now() - 61_000 }, /time is 61 s old/],
        [
            'time from the future',
            { ...good(), time: Date.now() + 120_000 },
            /ahead of this server's clock/,
        ],
    ]
    for (const [what, body, message] of cases) {
        const response = await authenticate(server, body)
        assertJsonError(response, 401, what)
        assert.match(response.body.message!, message, what)
    }
})

test('rejections: wrong key, tampered body, missing header, a replay: 401', async () => {
    const other = await createTestSigner()
    const body = Buffer.from(JSON.stringify(authenticateBody(address, testProfile('user-1'))))
    const url = `${server.root}/authenticate`
    const post = async (bytes: Buffer, signature: string | undefined) => {
        const response = await fetch(url, {
            method: 'POST',
            headers: {
                'Content-Type': 'application/json',
                ...(signature === undefined ? {} : { 'Service-Signature': signature }),
            },
            body: new Uint8Array(bytes),
        })
        return {
            status: response.status,
            headers: response.headers,
            body: (await response.json()) as { message: string },
        }
    }

    const forged = await post(body, await other.sign(body))
    assertJsonError(forged, 401, 'signed by another key')
    assert.match(forged.body.message, /signature does not match/)

    const signature = await signer.sign(body)
    // Same length, still valid JSON, another name: only the signature can tell.
    const tampered = Buffer.from(body.toString('utf8').replace('"Tester"', '"Hacker"'))
    assert.is.not(tampered.toString(), body.toString())
    assertJsonError(await post(tampered, signature), 401, 'tampered body')

    const missing = await post(body, undefined)
    assertJsonError(missing, 401, 'no signature header')
    assert.match(missing.body.message, /signature header is missing/)

    assertJsonError(await post(body, 'not base64 at all!'), 401, 'garbage signature')

    assert.is((await post(body, signature)).status, 200, 'the genuine request')
    const replay = await post(body, signature)
    assertJsonError(replay, 401, 'the same request again')
    assert.match(replay.body.message, /already used/)
})

test('malformed bodies are 400: not JSON, wrong shape, wrong content type', async () => {
    const url = `${server.root}/authenticate`
    const send = async (body: string, type = 'application/json') => {
        const bytes = Buffer.from(body)
        const response = await fetch(url, {
            method: 'POST',
            headers: { 'Content-Type': type, 'Service-Signature': await signer.sign(bytes) },
            body: new Uint8Array(bytes),
        })
        return {
            status: response.status,
            headers: response.headers,
            body: (await response.json()) as { message: string },
        }
    }
    assertJsonError(await send('{"type": "authenticateServer", '), 400, 'truncated JSON')
    assertJsonError(await send('[]'), 400, 'an array')
    const { userProfile, ...withoutProfile } = authenticateBody(address, testProfile('user-1'))
    assertJsonError(await send(JSON.stringify(withoutProfile)), 400, 'no userProfile')
    const { favorites, ...partialProfile } = userProfile as unknown as Record<string, unknown>
    assert.ok(favorites)
    const partial = await send(JSON.stringify({ ...withoutProfile, userProfile: partialProfile }))
    assertJsonError(partial, 400, 'a profile without favorites')
    assert.match(partial.body.message, /favorites/)
    assertJsonError(
        await send(JSON.stringify({ ...withoutProfile, time: 'now', userProfile })),
        400,
        'time is not a number',
    )
    assertJsonError(
        await send(JSON.stringify(authenticateBody(address, testProfile('user-1'))), 'text/plain'),
        400,
        'not application/json',
    )
})

test('a stale session header does not stop signing in again', async () => {
    const { status } = await authenticate(
        server,
        authenticateBody(address, testProfile('user-1')),
        { 'Service-Session': 'v1.expired.token' },
    )
    assert.is(status, 200)
})

test('sessions: accepted, tampered or foreign ones refused with 401', async () => {
    const session = await signIn()
    assert.is(
        (await getJson(`${server.root}/levels/list`, { headers: { 'Service-Session': session } }))
            .status,
        200,
    )

    const [version, payload, mac] = session.split('.')
    const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString()) as {
        id: string
        name: string
        exp: number
    }
    assert.is(claims.id, 'user-1')
    assert.is(claims.name, 'Tester')
    const raised = Buffer.from(JSON.stringify({ ...claims, id: 'admin' })).toString('base64url')
    for (const [what, forged] of [
        ['another user in the payload', `${version}.${raised}.${mac}`],
        ['a changed signature', `${version}.${payload}.${mac!.slice(0, -2)}AA`],
        ['not a token', 'hello'],
    ] as const) {
        const response = await getJson<{ message: string }>(`${server.root}/levels/list`, {
            headers: { 'Service-Session': forged },
        })
        assertJsonError(response, 401, what)
        assert.match(response.body.message, /sign in again/)
    }
})

test('sessions expire', async () => {
    const short = await startTestServer({
        signIn: { signatureKey: signer.publicKeyFile, sessionLifetimeMs: 300 },
    })
    try {
        const session = await signIn(short)
        assert.is(
            (await getJson(`${short.root}/info`, { headers: { 'Service-Session': session } }))
                .status,
            200,
        )
        await new Promise((resolve) => setTimeout(resolve, 400))
        const expired = await getJson<{ message: string }>(`${short.root}/info`, {
            headers: { 'Service-Session': session },
        })
        assertJsonError(expired, 401, 'an expired session')
        assert.match(expired.body.message, /expired/)
    } finally {
        await short.stop()
    }
})

test("replicas sharing a secret accept each other's sessions; another secret does not", async () => {
    const secret = 'a shared secret of at least thirty-two characters'
    const [first, second, stranger] = await Promise.all([
        startTestServer({ signIn: { signatureKey: signer.publicKeyFile, sessionSecret: secret } }),
        startTestServer({ signIn: { signatureKey: signer.publicKeyFile, sessionSecret: secret } }),
        startTestServer({
            signIn: { signatureKey: signer.publicKeyFile, sessionSecret: `${secret}, but another` },
        }),
    ])
    try {
        const session = await signIn(first)
        assert.is(
            (await getJson(`${second.root}/info`, { headers: { 'Service-Session': session } }))
                .status,
            200,
        )
        assertJsonError(
            await getJson(`${stranger.root}/info`, { headers: { 'Service-Session': session } }),
            401,
            'a session from another secret',
        )
    } finally {
        await Promise.all([first.stop(), second.stop(), stranger.stop()])
    }
})

test('without a secret, one is generated once into the state folder and sessions survive a restart', async () => {
    const cache = await temporaryFolder('shelf-state-')
    try {
        const first = await startTestServer({
            signIn: { signatureKey: signer.publicKeyFile },
            cache,
        })
        const session = await signIn(first)
        await first.close()
        const file = join(cache, '.session-secret')
        assert.is((await stat(file)).mode & 0o777, 0o600, 'only the owner may read the secret')
        const secret = await readFile(file, 'utf8')
        const again = await startTestServer({
            signIn: { signatureKey: signer.publicKeyFile },
            cache,
        })
        try {
            assert.is(await readFile(file, 'utf8'), secret, 'the secret is kept, not regenerated')
            assert.is(
                (await getJson(`${again.root}/info`, { headers: { 'Service-Session': session } }))
                    .status,
                200,
            )
        } finally {
            await again.close()
        }
    } finally {
        await rm(cache, { recursive: true, force: true })
    }
})

test('a short session secret is refused at start', async () => {
    try {
        await startTestServer({ signIn: { sessionSecret: 'short' } })
        assert.unreachable('started with a 5-character secret')
    } catch (error) {
        assert.match((error as Error).message, /at least 32 characters/)
    }
})

test('requireAuthentication: guests get 401 everywhere but sign-in and resources', async () => {
    const content = await copyContent()
    const serverYaml = join(content, 'server.yaml')
    await writeFile(
        serverYaml,
        `${await readFile(serverYaml, 'utf8')}\nrequireAuthentication: true\n`,
    )
    const guarded = await startTestServer({
        content,
        signIn: { signatureKey: signer.publicKeyFile },
    })
    try {
        for (const path of [
            '/info',
            '/levels/list',
            '/levels/first-steps',
            '/levels/first-steps/community/comments/list',
        ]) {
            const response = await getJson<{ message: string }>(`${guarded.root}${path}`)
            assertJsonError(response, 401, `GET ${path} as a guest`)
            assert.match(response.body.message, /sign in/)
        }
        const session = await signIn(guarded)
        const list = await getJson<{ items: { cover?: { url: string } }[] }>(
            `${guarded.root}/levels/list`,
            { headers: { 'Service-Session': session } },
        )
        assert.is(list.status, 200)
        const cover = list.body.items.find((item) => item.cover)!.cover!.url
        assert.is(
            (await fetch(new URL(cover, guarded.url))).status,
            200,
            'resources need no session',
        )
    } finally {
        await guarded.stop()
        await rm(content, { recursive: true, force: true })
    }
})

test('--no-sign-in: no sign-in button, and E2 is not offered', async () => {
    const closed = await startTestServer({ signIn: { enabled: false } })
    try {
        const info = await getJson<{ buttons: { type: string }[] }>(`${closed.root}/info`)
        assert.not.ok(info.body.buttons.some((button) => button.type === 'authentication'))
        const response = await authenticate(
            closed,
            authenticateBody(closed.url, testProfile('user-1')),
        )
        assertJsonError(response, 404, 'E2 with sign-in off')
    } finally {
        await closed.stop()
    }
})

test('with --address, only that address is accepted, under any protocol name', async () => {
    const sonolus = await startTestServer({
        name: 'sonolus',
        address: 'https://shelf.example',
        signIn: { signatureKey: signer.publicKeyFile },
    })
    try {
        const post = async (signedFor: string) => {
            const response = await postSigned(
                `${sonolus.root}/authenticate`,
                await signed(signer, authenticateBody(signedFor, testProfile('user-2'))),
                {},
                'Sonolus-Signature',
            )
            return {
                status: response.status,
                headers: response.headers,
                body: (await response.json()) as { message: string },
            }
        }
        assert.is((await post('https://shelf.example')).status, 200)
        const local = await post(sonolus.url)
        assertJsonError(local, 401, 'the local address when --address is set')
        assert.match(local.body.message, /https:\/\/shelf\.example/)
    } finally {
        await sonolus.stop()
    }
})

test.run()
