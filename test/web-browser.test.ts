/**
 * The web pages in a real browser (Debian's chromium through playwright-core): what a person
 * sees, clicks and plays, the live preview, and what players write rendered as text.
 */
import type { Browser, Page } from 'playwright-core'
import { readFile, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { launchBrowser } from './support/browser.js'
import { levelResources, sha1, tinyPng, writeTree } from './support/fixtures.js'
import { signInPlayer, type Player } from './support/player.js'
import { copyContent, startTestServer, temporaryFolder, type TestServer } from './support/server.js'
import { createTestSigner } from './support/signing.js'

let browser: Browser
let server: TestServer
let content: string
let cache: string
let page: Page
/** Everything the browser reports as broken: scripts refused by the Content-Security-Policy, failed loads. */
const consoleErrors: string[] = []

/** Twenty more levels than the example's five: two pages of the app's twenty. */
const generatedLevels = Array.from(
    { length: 20 },
    (_, index) => `generated-${String(index + 1).padStart(2, '0')}`,
)

test.before(async () => {
    content = await copyContent()
    cache = await temporaryFolder('shelf-web-state-')
    for (const [index, name] of generatedLevels.entries()) {
        await writeTree(content, {
            ...levelResources(name, index + 1),
            [`levels/${name}/item.yaml`]: `title: Generated level ${index + 1}\nartists: Test Band\nauthor: Tester\nrating: ${index + 1}\nengine: shelf-tap\ntime: 2025-01-${String(index + 1).padStart(2, '0')}T00:00:00Z\n`,
        })
    }
    const signer = await createTestSigner()
    ;[browser, server] = await Promise.all([
        launchBrowser(),
        startTestServer({
            content,
            cache,
            watch: true,
            signIn: {
                signatureKey: signer.publicKeyFile,
                sessionSecret: 'a secret of the browser tests, long enough',
            },
        }),
    ])
    player = await signInPlayer(
        server,
        signer,
        'eve-id',
        '<img src=x onerror="window.__xss=\'name\'">Eve',
    )
    page = await browser.newPage()
    page.on('console', (message) => {
        if (message.type() === 'error') consoleErrors.push(message.text())
    })
})

test.after(async () => {
    await browser?.close()
    await server?.stop()
    await rm(content, { recursive: true, force: true })
    await rm(cache, { recursive: true, force: true })
})

let player: Player

/** Resolves after the next reload the server serves. */
const nextReload = () =>
    new Promise<void>((resolve) => server.events.once('reload', () => resolve()))

const texts = (selector: string) => page.locator(selector).allTextContents()

test('home: the server title, banner, a tile per type in the order of the app, the app link and its QR code', async () => {
    const response = await page.goto(`${server.url}/?lang=en`)
    assert.is(response?.status(), 200)
    assert.is(await page.locator('h1').textContent(), 'Shelf example')
    assert.ok(
        await page
            .locator('img.server-banner')
            .evaluate((image: HTMLImageElement) => image.complete && image.naturalWidth > 0),
        'the banner loads',
    )
    const tiles = await texts('.tile strong')
    assert.equal(tiles, [
        'News',
        'Playlists',
        'Levels',
        'Replays',
        'Skins',
        'Backgrounds',
        'Effects',
        'Particles',
        'Engines',
    ])
    assert.match(
        (await texts('.tile .sub'))[2]!,
        /^26 items$/,
        'listed levels: six of the example and twenty generated',
    )
    assert.match(
        (await page.locator('a.open').getAttribute('href'))!,
        /^https:\/\/open\.sonolus\.com\/[^/]+:\d+\/$/,
    )
    assert.is(await page.locator('svg.qr path').count(), 2, 'a QR code drawn as SVG')
    await page.locator('.languages a[hreflang="ja"]').click()
    assert.is(await page.locator('h1').textContent(), 'Shelf のサンプル')
    assert.is(await page.locator('html').getAttribute('lang'), 'ja')
    assert.ok(
        (await texts('.tile strong')).includes('お知らせ'),
        'the types are titled in Japanese',
    )
})

test('a list pages like the app (20 a page) and its quick search finds by title', async () => {
    await page.goto(`${server.url}/?lang=en`)
    await page.locator('.tile', { hasText: 'Levels' }).click()
    assert.match(page.url(), /\/levels\/list\?lang=en$/)
    assert.is(await page.locator('.cards .card').count(), 20)
    assert.is(
        await page
            .locator('.pager')
            .textContent()
            .then((text) => text?.includes('Page 1 of 2')),
        true,
    )
    const firstPage = await texts('.card strong')
    await page.locator('a[rel="next"]').click()
    const secondPage = await texts('.card strong')
    assert.is(secondPage.length, 6)
    assert.equal(
        [...firstPage, ...secondPage].filter((title) => title.startsWith('Generated level')).length,
        20,
    )
    assert.ok(
        await page
            .locator('.card img')
            .first()
            .evaluate((image: HTMLImageElement) => image.src.includes('/repository/')),
        'covers are the hash-named resources',
    )
    await page.locator('a[rel="prev"]').click()
    assert.equal(await texts('.card strong'), firstPage)

    await page.locator('input[name="keywords"]').fill('thunder')
    await page.locator('form.search button').click()
    assert.match(page.url(), /keywords=thunder/)
    assert.equal(await texts('.card strong'), ['Thunder Road'])
    await page.locator('input[name="keywords"]').fill('nothing like this')
    await page.locator('form.search button').click()
    assert.is(await page.locator('.card').count(), 0)
    assert.is(await page.locator('.empty').textContent(), 'Nothing matches this search.')
})

test('a level: cover loaded, music to play, what it uses as links, the app link and a QR code', async () => {
    await page.goto(`${server.url}/levels/first-steps?lang=en`)
    assert.is(await page.locator('h1').textContent(), 'First Steps')
    assert.ok(
        await page
            .locator('img.cover')
            .evaluate((image: HTMLImageElement) => image.complete && image.naturalWidth > 0),
        'the cover loads',
    )
    const sources = await page
        .locator('audio')
        .evaluateAll((elements) => elements.map((element) => (element as HTMLAudioElement).src))
    assert.is(sources.length, 2, 'preview and music')
    for (const source of sources) assert.is((await fetch(source)).status, 200)
    assert.ok(
        await page
            .locator('audio')
            .first()
            .evaluate((audio: HTMLAudioElement) => audio.canPlayType('audio/mpeg') !== ''),
        'the browser can play the mp3',
    )
    assert.match(await page.locator('.md').first().innerHTML(), /<p>A gentle first level/)
    assert.is(
        await page.locator('.uses a', { hasText: 'Shelf Tap' }).getAttribute('href'),
        '/engines/shelf-tap?lang=en',
    )
    assert.match(
        (await page.locator('a.open').getAttribute('href'))!,
        /^https:\/\/open\.sonolus\.com\/[^/]+:\d+\/levels\/first-steps$/,
    )
    assert.is(await page.locator('svg.qr').count(), 1)
    assert.ok(
        (await texts('section h2')).includes('More by this author'),
        'the sections the app shows',
    )
    await page.locator('.uses a', { hasText: 'Shelf Tap' }).click()
    assert.is(await page.locator('h1').textContent(), 'Shelf Tap')
    assert.ok(
        (await texts('.card strong')).includes('First Steps'),
        'the engine page lists levels using it',
    )
})

test('a post is an article with its Markdown rendered', async () => {
    await page.goto(`${server.url}/posts/welcome?lang=en`)
    assert.is(await page.locator('.post article h1').textContent(), 'Welcome to Shelf')
    assert.is(await page.locator('.post article .md strong').first().textContent(), 'Shelf')
    assert.is(await page.locator('.post article .md code').first().textContent(), 'content/')
    assert.is(await page.locator('meta[property="og:type"]').getAttribute('content'), 'article')
    assert.is(
        await page.locator('.post article time').getAttribute('datetime'),
        '2026-01-01T09:00:00.000Z',
    )
})

test('comments page by page, and a leaderboard with its records and replays', async () => {
    await page.goto(`${server.url}/levels/first-steps?lang=en`)
    assert.is(await page.locator('.comments li').count(), 3, 'the newest three on the item')
    await page.locator('a', { hasText: 'All comments (13)' }).click()
    assert.is(await page.locator('.comments li').count(), 10)
    await page.locator('a[rel="next"]').click()
    assert.is(await page.locator('.comments li').count(), 3)
    await page.goto(`${server.url}/levels/first-steps?lang=en`)
    await page.locator('.leaderboard h3 a').first().click()
    assert.is(await page.locator('h1').textContent(), 'Top scores')
    const rows = await page.locator('table.records tbody tr').count()
    assert.ok(rows >= 3, `records listed (${rows})`)
    await page.locator('a.replay').first().click()
    assert.match(page.url(), /\/replays\//)
    assert.ok(
        await page
            .locator('img.cover')
            .evaluate((image: HTMLImageElement) => image.naturalWidth > 0),
        "a replay shows its level's cover",
    )
    assert.ok(
        await page.locator('.uses a', { hasText: 'First Steps' }).count(),
        'and leads to its level',
    )
})

test('a broken edit shows a banner and the problems page; the fix takes both away', async () => {
    const file = join(content, 'levels', 'night-drive', 'item.yaml')
    const original = await readFile(file, 'utf8')
    let reloaded = nextReload()
    await writeFile(file, original.replace(/^rating: .*$/m, 'rating: "very hard"'))
    await reloaded
    await page.goto(`${server.url}/?lang=en`)
    assert.match(
        (await page.locator('.banner').textContent())!,
        /^The content has (a problem|\d+ problems)\. See them$/,
    )
    await page.locator('.banner a').click()
    assert.is(await page.locator('h1').textContent(), 'Problems')
    const row = (await page.locator('table.problems tbody tr').first().textContent())!
    assert.match(row, /levels\/night-drive\/item\.yaml:\d+/)
    assert.match(row, /rating/)

    reloaded = nextReload()
    await writeFile(file, original)
    await reloaded
    await page.reload()
    assert.is(await page.locator('table.problems').count(), 0)
    assert.is(await page.locator('.ok').textContent(), 'No problems: every file reads cleanly.')
    assert.is(await page.locator('.banner').count(), 0)
})

test('an open page updates itself after an edit, without a reload', async () => {
    await page.goto(`${server.url}/levels/thunder-road?lang=en`)
    await page.evaluate(() => ((window as unknown as { stayed: boolean }).stayed = true))
    const file = join(content, 'levels', 'thunder-road', 'item.json')
    const original = await readFile(file, 'utf8')
    const edited = original.replace('"Thunder Road"', '"Thunder Road, remastered"')
    assert.is.not(edited, original)
    await writeFile(file, edited)
    await page.locator('h1', { hasText: 'Thunder Road, remastered' }).waitFor({ timeout: 10_000 })
    assert.ok(
        await page.evaluate(() => (window as unknown as { stayed?: boolean }).stayed),
        'the same document: no reload',
    )
    assert.is(
        await page.title().then((title) => title.startsWith('Thunder Road, remastered')),
        true,
    )
    await writeFile(file, original)
    await page.locator('h1', { hasText: /^Thunder Road$/ }).waitFor({ timeout: 10_000 })
})

test('what players write renders as text: <script>, "><img onerror> and javascript: links do nothing', async () => {
    const title =
        '<script>window.__xss="title"</script>"><img src=x onerror="window.__xss=\'title-img\'">'
    const description = [
        '<script>window.__xss="description"</script>',
        '"><img src=x onerror="window.__xss=\'description-img\'">',
        '[click me](javascript:window.__xss="link")',
        '<a href="javascript:window.__xss=\'raw-link\'">raw</a>',
    ].join('\n\n')
    const thumbnail = tinyPng(9, 9, 9)
    const submit = await player.submit('/posts/create', {
        type: 'post',
        title: title.slice(0, 100),
        description,
        thumbnail: sha1(thumbnail),
    })
    assert.is(submit.status, 200, submit.body.message)
    const upload = await player.upload('/posts/upload', submit.body.key, [thumbnail])
    assert.is(upload.status, 200, upload.body.message)
    const post = String(upload.body.shouldNavigateToItem)
    const comment =
        '<script>window.__xss="comment"</script> "><img src=x onerror="window.__xss=\'comment-img\'"> [x](javascript:window.__xss="comment-link") javascript:alert(1)'
    const commented = await player.submit(`/posts/${post}/community/submit`, {
        type: 'comment',
        content: comment,
    })
    assert.is(commented.status, 200, commented.body.message)

    await page.goto(`${server.url}/posts/${post}?lang=en`)
    assert.is(
        await page.locator('h1').textContent(),
        title.slice(0, 100),
        'the title shows as written',
    )
    assert.match(
        (await page.locator('.by').first().textContent())!,
        /<img src=x onerror=.*Eve/,
        "the player's name too",
    )
    assert.is((await page.locator('.comment-body').first().textContent())?.trim(), comment)
    const description_ = (await page.locator('article .md').textContent())!
    assert.match(description_, /<script>window.__xss="description"<\/script>/)
    assert.match(description_, /"><img src=x onerror=/)
    assert.is(await page.locator('img[src="x"]').count(), 0, 'no image made of text')
    assert.is(await page.locator('main script').count(), 0, 'no script made of text')
    assert.is(await page.locator('a[href^="javascript"]').count(), 0, 'no javascript: link')
    assert.ok(
        (await page.locator('a', { hasText: 'click me' }).count()) === 0,
        'the javascript: link stays text',
    )
    await page.waitForTimeout(100)
    assert.is(
        await page.evaluate(() => (window as unknown as { __xss?: string }).__xss),
        undefined,
        'nothing ran',
    )
    // The title is in the list and the comment in the comments page too.
    await page.goto(`${server.url}/posts/list?lang=en`)
    assert.ok((await texts('.card strong')).includes(title.slice(0, 100)))
    assert.is(await page.locator('img[src="x"]').count(), 0)
    assert.is(await page.evaluate(() => (window as unknown as { __xss?: string }).__xss), undefined)
})

test('no page broke a rule of the Content-Security-Policy or failed to load what it shows', () => {
    assert.equal(consoleErrors, [])
})

test.run()
