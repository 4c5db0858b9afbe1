/**
 * Symbolic links: Shelf follows a link only when it leads inside the content folder. A link to a
 * file or folder outside is left out and reported, at start and while watching; a resource that
 * becomes such a link after it was read is not served; links inside keep working.
 */
import type { LevelItem } from '@sonolus/core'
import { cp, mkdir, readdir, rm, symlink, unlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import type { Problem } from '../src/content/problems.js'
import { signInPlayer } from './support/player.js'
import { createTestSigner } from './support/signing.js'
import {
    copyContent,
    getJson,
    startTestServer,
    temporaryFolder,
    type TestServer,
} from './support/server.js'

const test = suite('symbolic links')
const secret = 'root:x:0:0:a secret outside the content folder\n'
let content: string
let outside: string
let server: TestServer

/** Polls the served snapshot until `ready` holds: the watcher reports changes a moment later. */
const until = async (ready: () => boolean, what: string) => {
    const deadline = Date.now() + 5_000
    while (!ready()) {
        if (Date.now() > deadline) throw new Error(`${what} did not happen within 5 s`)
        await new Promise((resolve) => setTimeout(resolve, 20))
    }
}

const problemsOf = (path: string) =>
    server.catalog().problems.filter((problem: Problem) => problem.file === path)

test.before(async () => {
    content = await copyContent()
    outside = await temporaryFolder('shelf-outside-')
    await writeFile(join(outside, 'passwd'), secret)
    // A whole valid level outside, to be linked in as a folder.
    await cp(join(content, 'levels', 'city-lights'), join(outside, 'level'), { recursive: true })
    await symlink(join(outside, 'level'), join(content, 'levels', 'linked-at-start'))
    // Links inside the folder: a level folder, and one level's bgm shared by another.
    await symlink('city-lights', join(content, 'levels', 'alias-inside'))
    await unlink(join(content, 'levels', 'night-drive', 'bgm.mp3'))
    await symlink('../first-steps/bgm.mp3', join(content, 'levels', 'night-drive', 'bgm.mp3'))
    server = await startTestServer({ content, watch: true })
})

test.after(async () => {
    await server?.stop()
    await rm(content, { recursive: true, force: true })
    await rm(outside, { recursive: true, force: true })
})

test('a folder linked from outside is not loaded at start, and is reported', async () => {
    assert.not.ok(server.catalog().get('level', 'linked-at-start'), 'not served')
    assert.is((await getJson(`${server.root}/levels/linked-at-start`)).status, 404)
    assert.match(
        problemsOf('levels/linked-at-start')[0]?.message ?? '',
        /symbolic link that leads outside/,
    )
})

test('links that stay inside the folder are followed', async () => {
    assert.ok(
        server.catalog().get('level', 'alias-inside'),
        'a level folder linked inside is served',
    )
    const shared = await getJson<{ item: LevelItem }>(`${server.root}/levels/night-drive`)
    const original = await getJson<{ item: LevelItem }>(`${server.root}/levels/first-steps`)
    assert.is(shared.status, 200)
    assert.is(
        shared.body.item.bgm.hash,
        original.body.item.bgm.hash,
        'the linked bgm is the same bytes',
    )
})

test('a cover replaced by a link to a file outside, while watching: never served', async () => {
    const before = await getJson<{ item: LevelItem }>(`${server.root}/levels/first-steps`)
    const coverHash = before.body.item.cover.hash
    const cover = join(content, 'levels', 'first-steps', 'cover.png')
    await rm(cover)
    await symlink(join(outside, 'passwd'), cover)
    // At once, before any reload, the old hash must not lead to the new target.
    const early = await fetch(`${server.root}/repository/${coverHash}`)
    assert.not.match(await early.text(), /a secret outside/)
    await until(() => problemsOf('levels/first-steps/cover.png').length > 0, 'the link reported')
    const late = await fetch(`${server.root}/repository/${coverHash}`)
    assert.is(late.status, 404)
    assert.not.match(await late.text(), /a secret outside/)
    // The level keeps its last good version; its cover is simply not served any more.
    assert.ok(server.catalog().get('level', 'first-steps'))
})

test('a folder linked from outside while watching is not loaded, and is reported', async () => {
    await symlink(join(outside, 'level'), join(content, 'levels', 'linked-later'))
    await until(() => problemsOf('levels/linked-later').length > 0, 'the link reported')
    assert.not.ok(server.catalog().get('level', 'linked-later'))
})

test('a type folder that is a link to outside is not read', async () => {
    const folder = await copyContent()
    const elsewhere = await temporaryFolder('shelf-outside-posts-')
    try {
        await cp(join(folder, 'posts'), elsewhere, { recursive: true })
        await rm(join(folder, 'posts'), { recursive: true })
        await symlink(elsewhere, join(folder, 'posts'))
        await mkdir(join(folder, 'levels', 'x'), { recursive: true })
        await symlink(join(outside, 'passwd'), join(folder, 'levels', 'x', 'item.yaml'))
        const other = await startTestServer({ content: folder })
        try {
            assert.is(other.catalog().items.post.size, 0, 'no post is read through the link')
            assert.ok(
                other.catalog().problems.some((problem) => problem.file === 'posts'),
                'the linked type folder is reported',
            )
            assert.ok(
                other.catalog().problems.some((problem) => problem.file === 'levels/x/item.yaml'),
                'a record linked to outside is reported',
            )
            assert.not.match(JSON.stringify(other.catalog().problems), /a secret outside/)
        } finally {
            await other.stop()
        }
    } finally {
        await rm(folder, { recursive: true, force: true })
        await rm(elsewhere, { recursive: true, force: true })
    }
})

test("a player's write never goes through a link to outside: 403, nothing written there", async () => {
    const folder = await copyContent()
    const elsewhere = await temporaryFolder('shelf-outside-comments-')
    const signer = await createTestSigner()
    try {
        await rm(join(folder, 'levels', 'city-lights', 'comments'), {
            recursive: true,
            force: true,
        })
        await symlink(elsewhere, join(folder, 'levels', 'city-lights', 'comments'))
        const writable = await startTestServer({
            content: folder,
            signIn: { signatureKey: signer.publicKeyFile },
        })
        try {
            const player = await signInPlayer(writable, signer, 'linker-id', 'Linker')
            const answer = await player.submit('/levels/city-lights/community/submit', {
                type: 'comment',
                content: 'through the link',
            })
            assert.is(answer.status, 403, answer.body.message)
            assert.match(
                answer.body.message!,
                /leads outside the content folder through a symbolic link/,
            )
            assert.equal(await readdir(elsewhere), [], 'nothing was written outside')
        } finally {
            await writable.stop()
        }
    } finally {
        await rm(folder, { recursive: true, force: true })
        await rm(elsewhere, { recursive: true, force: true })
    }
})

test.run()
