/**
 * Abuse that costs others: a flood of upload keys by many players, a multipart body that never
 * holds its boundary, and the per-player cap on waiting keys.
 */
import { request } from 'node:http'
import { readFile, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { Refusal } from '../src/util/refusal.js'
import { MemoryState } from '../src/shared-state/memory-state.js'
import { UploadKeys, type PendingUpload } from '../src/writes/upload-keys.js'
import { sha1, tinyPng } from './support/fixtures.js'
import { signInPlayer, type Player } from './support/player.js'
import { createTestSigner } from './support/signing.js'
import { copyContent, startTestServer, type TestServer } from './support/server.js'

const test = suite('abuse limits')
let content: string
let server: TestServer
let alice: Player
let testSigner: Awaited<ReturnType<typeof createTestSigner>>

test.before(async () => {
    const signer = await createTestSigner()
    testSigner = signer
    content = await copyContent()
    // A day-long window: no write is given back while the test runs, however slow the machine.
    const serverYaml = join(content, 'server.yaml')
    await writeFile(
        serverYaml,
        (await readFile(serverYaml, 'utf8')).replace(
            /^limits:\n/m,
            'limits:\n  comments: { perPlayer: 3, perAddress: 7, perSeconds: 86400 }\n',
        ),
    )
    server = await startTestServer({ content, signIn: { signatureKey: signer.publicKeyFile } })
    alice = await signInPlayer(server, signer, 'alice-id', 'Alice')
})

test.after(async () => {
    await server?.stop()
    await rm(content, { recursive: true, force: true })
})

const waiting = (userId: string): PendingUpload => ({
    userId,
    endpoint: '/posts/upload',
    hashes: ['0'.repeat(40)],
    maxBytes: {},
    change: { user: { id: userId, handle: '1000', name: userId }, did: 'posted' },
    completion: { job: 'post', args: {} },
})

test('520 players keeping 20 keys each do not lock anyone else out of uploads', async () => {
    const keys = new UploadKeys(new MemoryState())
    const issued = new Map<string, string[]>()
    for (let player = 0; player < 520; player++) {
        const id = `flooder-${player}`
        const own: string[] = []
        for (let index = 0; index < 20; index++) own.push(await keys.issue(waiting(id)))
        issued.set(id, own)
    }
    // Someone new still gets a key, and it works.
    const key = await keys.issue(waiting('newcomer'))
    assert.ok(await keys.take(key, 'newcomer', '/posts/upload'))
    // The keys that made room were the flooders' oldest; their newest still work.
    const firstFlooder = issued.get('flooder-0')!
    assert.ok(await keys.take(firstFlooder.at(-1)!, 'flooder-0', '/posts/upload'))
})

test('a player past 20 waiting keys is told to wait, with when to try again', async () => {
    const keys = new UploadKeys(new MemoryState())
    for (let index = 0; index < 20; index++) await keys.issue(waiting('eager'))
    try {
        await keys.issue(waiting('eager'))
        assert.unreachable('the 21st key is refused')
    } catch (error) {
        assert.instance(error, Refusal)
        assert.is((error as Refusal).kind, 'too-many')
        assert.match((error as Refusal).message, /you have 20 uploads waiting/)
        assert.ok((error as Refusal).retryAfterSeconds! > 0)
    }
    assert.ok(await keys.issue(waiting('someone else')))
})

/** An upload whose body is bytes without any multipart boundary, sent until the server answers. */
const endlessUpload = (key: string, contentLength?: number) =>
    new Promise<{ status: number; body: string; sentBytes: number }>((resolve, reject) => {
        const url = new URL(`${server.root}/posts/upload`)
        const headers: Record<string, string | number> = {
            'Content-Type': 'multipart/form-data; boundary=never-sent',
            'Service-Upload-Key': key,
            'Service-Session': alice.session,
        }
        if (contentLength !== undefined) headers['Content-Length'] = contentLength
        const upload = request(url, { method: 'POST', headers })
        const chunk = Buffer.alloc(256 * 1024, 'a')
        let sentBytes = 0
        let answered = false
        upload.on('response', (response) => {
            answered = true
            let body = ''
            response.setEncoding('utf8').on('data', (part: string) => (body += part))
            response.on('end', () => {
                resolve({ status: response.statusCode!, body, sentBytes })
                upload.destroy()
            })
        })
        upload.on('error', (error) => (answered ? undefined : reject(error)))
        const send = () => {
            // At most 1 GiB; the server must answer long before.
            while (!answered && sentBytes < 1024 ** 3) {
                sentBytes += chunk.length
                if (!upload.write(chunk)) return void upload.once('drain', send)
            }
        }
        send()
    })

test('a multipart body that never holds its boundary is cut off at the upload limit: 413, not read to its end', async () => {
    const thumbnail = tinyPng(5, 5, 5)
    const submit = await alice.submit('/posts/create', {
        type: 'post',
        title: 'Endless',
        thumbnail: sha1(thumbnail),
    })
    assert.is(submit.status, 200, submit.body.message)
    const answer = await endlessUpload(submit.body.key)
    assert.is(answer.status, 413, answer.body)
    assert.match(JSON.parse(answer.body).message, /the upload is larger than its files may be/)
    // The limit is the server's 10 MiB a file plus framing; what the socket buffers besides is small.
    assert.ok(
        answer.sentBytes < 64 * 1024 * 1024,
        `sent ${answer.sentBytes} bytes before the answer`,
    )
})

test('an upload that declares a body past the limit is refused before it is read', async () => {
    const thumbnail = tinyPng(6, 6, 6)
    const submit = await alice.submit('/posts/create', {
        type: 'post',
        title: 'Declared',
        thumbnail: sha1(thumbnail),
    })
    const answer = await endlessUpload(submit.body.key, 1024 ** 3)
    assert.is(answer.status, 413, answer.body)
    assert.ok(
        answer.sentBytes < 16 * 1024 * 1024,
        `sent ${answer.sentBytes} bytes before the answer`,
    )
})

test('a player commenting too fast gets 429 with Retry-After; then the address does', async () => {
    const comment = (player: Player, index: number) =>
        player.submit('/levels/city-lights/community/submit', {
            type: 'comment',
            content: `comment ${index}`,
        })
    for (let index = 0; index < 3; index++) assert.is((await comment(alice, index)).status, 200)
    const refused = await comment(alice, 3)
    assert.is(refused.status, 429, refused.body.message)
    assert.match(
        refused.body.message!,
        /you may make 3 comments in 24 hours: try again in \d+ (seconds|minutes|hours)/,
    )
    const retryAfter = Number(refused.headers.get('retry-after'))
    assert.ok(
        retryAfter > 3600 && retryAfter <= 86400 / 3,
        `Retry-After: ${refused.headers.get('retry-after')}`,
    )
    // Other players at the same address share its 7: Bob makes 3, Carol 1, then Carol is refused for the address.
    const [bob, carol] = await Promise.all(
        ['bob', 'carol'].map((name) => signInPlayer(server, testSigner, `${name}-id`, name)),
    )
    for (let index = 0; index < 3; index++) assert.is((await comment(bob!, index)).status, 200)
    assert.is((await comment(carol!, 0)).status, 200)
    const crowded = await comment(carol!, 1)
    assert.is(crowded.status, 429)
    assert.match(crowded.body.message!, /players at your address may make 7 comments in 24 hours/)
    const list = await alice.get<{ comments: { content: string }[] }>(
        '/levels/city-lights/community/comments/list',
    )
    assert.is(
        list.body.comments.filter((entry) => /^comment \d$/.test(entry.content)).length,
        7,
        'the refused comments were never written',
    )
})

test('the defaults, for a server.yaml that sets no rates', async () => {
    const { defaultLimits } = await import('../src/content/server-settings.js')
    const settings = server.catalog().settings.limits
    assert.equal(settings.creates, defaultLimits.creates)
    assert.equal(defaultLimits.comments, { perPlayer: 10, perAddress: 30, perSeconds: 60 })
})

test.run()
