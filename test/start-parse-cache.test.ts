/**
 * A start takes each YAML and Markdown record it parsed at the last start from the state folder,
 * and never serves a stale one: an edit made between two starts is served, even one that keeps
 * the file's size and modification time, and a record taken from the cache still has its
 * problems pointed at the line they are on.
 */
import type { LevelItem, PostItem, ServerItemDetails } from '@sonolus/core'
import { readFile, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { startShelf, type RunningShelf } from '../src/server.js'
import { exists, rewriteUnseen } from './support/fixtures.js'
import { copyContent, getJson, temporaryFolder } from './support/server.js'

const start = (content: string, cache: string) =>
    startShelf(
        { content, cache, name: 'service', drafts: false, watch: false },
        { port: 0, host: '127.0.0.1' },
    )

test('records edited between two starts are served as edited, even at the same size and modification time', async () => {
    const content = await copyContent()
    const cache = await temporaryFolder('shelf-cache-')
    const level = join(content, 'levels/night-drive/item.yaml')
    const post = join(content, 'posts/welcome.md')

    const first = await start(content, cache)
    const level1 = await getJson<ServerItemDetails<LevelItem>>(
        `${first.url}/service/levels/night-drive`,
    )
    assert.is(level1.body.item.title, 'Night Drive')
    const post1 = await getJson<ServerItemDetails<PostItem>>(`${first.url}/service/posts/welcome`)
    await first.close()
    assert.ok(await exists(join(cache, 'parsed.json')), 'the parsed records are kept')

    await rewriteUnseen(
        level,
        (await readFile(level, 'utf8')).replace('en: Night Drive', 'en: Night Drift'),
    )
    const postText = await readFile(post, 'utf8')
    const lastWord = /(\w{4})(\W*)$/.exec(postText)!
    await rewriteUnseen(post, `${postText.slice(0, lastWord.index)}WXYZ${lastWord[2]}`)

    const second = await start(content, cache)
    try {
        const level2 = await getJson<ServerItemDetails<LevelItem>>(
            `${second.url}/service/levels/night-drive`,
        )
        assert.is(level2.status, 200)
        assert.is(level2.body.item.title, 'Night Drift')
        const post2 = await getJson<ServerItemDetails<PostItem>>(
            `${second.url}/service/posts/welcome`,
        )
        assert.is(post2.body.item.title, post1.body.item.title, 'the front matter is unchanged')
        assert.ok(post2.body.description?.includes('WXYZ'), 'the edited body is served')
        assert.not.ok(post1.body.description?.includes('WXYZ'))
    } finally {
        await second.close()
    }
})

test('a record taken from the cache still names the line of a problem the folder gives it', async () => {
    const content = await copyContent()
    const cache = await temporaryFolder('shelf-cache-')
    const first = await start(content, cache)
    const ofLevel = (shelf: RunningShelf) =>
        shelf.catalog().problems.find((found) => found.file === 'levels/night-drive/item.yaml')
    assert.is(ofLevel(first), undefined)
    await first.close()

    // night-drive's own file is unchanged (taken from the cache); the skin it names is gone.
    await rm(join(content, 'skins/neon-glow'), { recursive: true })
    const second = await start(content, cache)
    try {
        const found = ofLevel(second)
        assert.ok(found, 'the broken reference is reported')
        assert.is(found!.field, 'useSkin')
        const lines = (await readFile(join(content, 'levels/night-drive/item.yaml'), 'utf8')).split(
            '\n',
        )
        assert.ok(
            lines[found!.line! - 1]?.startsWith('useSkin:'),
            `line ${found!.line} is the useSkin line`,
        )
    } finally {
        await second.close()
    }
})

test.run()
