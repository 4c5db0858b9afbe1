/**
 * Details of the pages a new owner meets first: comments are Markdown like descriptions (and as
 * safe), a Japanese page names item types in Japanese, and the problems page has no banner that
 * leads to itself.
 */
import { rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { copyContent, startTestServer, type TestServer } from './support/server.js'

const test = suite('page details')

let content: string
let server: TestServer

test.before(async () => {
    content = await copyContent()
    // One problem, so that pages carry the problems banner.
    await writeFile(join(content, 'levels/city-lights/item.yaml'), 'title: [unclosed\n')
    server = await startTestServer({ content, watch: true })
})

test.after(async () => {
    await server.stop()
    await rm(content, { recursive: true, force: true })
})

const html = async (path: string) => {
    const response = await fetch(`${server.url}${path}`)
    assert.is(response.status, 200, path)
    return response.text()
}

test('a comment’s Markdown is rendered, its HTML still escaped', async () => {
    const page = await html('/levels/first-steps/community/comments/list?lang=en')
    assert.match(page, /with the <strong>Neon Glow<\/strong> skin/)
    assert.not.match(page, /\*\*Neon Glow\*\*/)
})

test('a Japanese page names the types of the items it uses in Japanese', async () => {
    const page = await html('/levels/first-steps?lang=ja')
    for (const name of ['エンジン', 'スキン', '背景', '効果音', 'パーティクル'])
        assert.ok(page.includes(`>${name}<`), `${name} labels a reference`)
    for (const name of ['Engine', 'Skin', 'Background', 'Effect', 'Particle'])
        assert.not.ok(page.includes(`>${name}<`), `no English ${name}`)
})

test('pages link to the problems from their banner; the problems page itself has none', async () => {
    const home = await html('/?lang=en')
    assert.match(home, /<p class="banner"[^>]*>.*href="\/_shelf\/problems\.html"/)
    const problems = await html('/_shelf/problems.html?lang=en')
    assert.match(problems, /levels\/city-lights\/item\.yaml/)
    assert.not.match(problems, /class="banner"/)
})

test.run()
