/**
 * A type folder that the content does not have yet (no posts so far) is made by the first item
 * a player creates of that type.
 */
import type { PostItem } from '@sonolus/core'
import { existsSync } from 'node:fs'
import { rm } from 'node:fs/promises'
import { join } from 'node:path'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { signInPlayer } from './support/player.js'
import { createTestSigner } from './support/signing.js'
import { generousWriteLimits } from './support/write-limits.js'
import { copyContent, getJson, startTestServer, temporaryFolder } from './support/server.js'

const test = suite('the first item of a type')

test('creating a post where there is no posts/ folder makes the folder and serves the post', async () => {
    const signer = await createTestSigner()
    const content = await copyContent()
    const cache = await temporaryFolder('shelf-first-of-type-')
    await rm(join(content, 'posts'), { recursive: true, force: true })
    await generousWriteLimits(content)
    const server = await startTestServer({
        content,
        cache,
        watch: false,
        signIn: {
            signatureKey: signer.publicKeyFile,
            sessionSecret: 'a secret for the first item of a type test',
        },
    })
    try {
        const alice = await signInPlayer(() => server, signer, 'alice-id', 'Alice')
        const submit = await alice.submit('/posts/create', {
            type: 'post',
            title: 'The very first post',
        })
        assert.is(submit.status, 200, submit.body.message)
        const name = String(submit.body.shouldNavigateToItem ?? '')
        assert.ok(existsSync(join(content, 'posts', name, 'item.yaml')), 'the post is on disk')
        const list = await getJson<{ items: PostItem[] }>(`${server.root}/posts/list`)
        assert.equal(
            list.body.items.map((post) => post.title),
            ['The very first post'],
        )
    } finally {
        await server.stop()
        await rm(content, { recursive: true, force: true })
        await rm(cache, { recursive: true, force: true })
    }
})

test.run()
