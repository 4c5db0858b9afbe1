/**
 * `shelf export` served by real nginx: every URL a guest's app reaches on the live server (in the
 * export's mode, same options) answers the same status and bytes from nginx with the exported
 * nginx.conf; every Srl's bytes hash to its hash; nothing the copy cannot do is advertised; a
 * second export writes only what changed; and the folder checks of the command.
 */
import { readFile, rm, stat, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { generatePackTree } from '../bench/generate-pack-tree.js'
import { exportedServerOptions, exportSite, type ExportOptions } from '../src/export/export-site.js'
import { startShelf } from '../src/server.js'
import { sha1 } from './support/fixtures.js'
import { crawlGuest, type Fetched } from './support/guest-crawl.js'
import { startNginx } from './support/nginx.js'
import { describeRun, runShelf } from './support/run-cli.js'
import {
    copyContent,
    exampleContent,
    getJson,
    startTestServer,
    temporaryFolder,
} from './support/server.js'

const address = 'https://static.example/shelf'
const scratch: string[] = []
const scratchFolder = async (prefix?: string) => {
    const folder = await temporaryFolder(prefix)
    scratch.push(folder)
    return folder
}

const getBytes = async (url: string) => {
    const response = await fetch(url)
    return {
        status: response.status,
        headers: response.headers,
        body: Buffer.from(await response.arrayBuffer()),
    }
}

type Json = Record<string, unknown>
const json = (answer: Fetched) => JSON.parse(answer.body.toString('utf8')) as Json

/** Exports `content`, serves it with nginx and the live server alike, and compares every URL a guest reaches. */
const compareWithNginx = async (content: string, name: string, unlinked: string[] = []) => {
    const out = await scratchFolder('shelf-export-')
    const options: ExportOptions = {
        out,
        address,
        content,
        name,
        drafts: false,
        allowProblems: false,
    }
    const result = await exportSite(options)
    assert.ok(result.exported, `export refused: ${JSON.stringify(result.problems)}`)
    const live = await startShelf(
        exportedServerOptions(options, await scratchFolder('shelf-cache-')),
        { port: 0, host: '127.0.0.1' },
    )
    const nginx = await startNginx(join(out, 'public'), join(out, 'nginx.conf'))
    try {
        const { answers, srls } = await crawlGuest(
            (path) => getBytes(`${live.url}${path}`),
            name,
            'en',
        )
        const version = `${name.charAt(0).toUpperCase()}${name.slice(1)}-Version`
        for (const answer of answers) {
            assert.is(answer.status, 200, `the live server answers ${answer.path}`)
            const fromNginx = await getBytes(`${nginx.url}${answer.path}`)
            assert.is(fromNginx.status, answer.status, `status of ${answer.path}`)
            assert.ok(
                fromNginx.body.equals(answer.body),
                `bytes of ${answer.path}:\nnginx ${fromNginx.body.toString().slice(0, 300)}\nlive  ${answer.body.toString().slice(0, 300)}`,
            )
            assert.is(
                fromNginx.headers.get('content-type'),
                'application/json; charset=utf-8',
                answer.path,
            )
            assert.is(fromNginx.headers.get(version), '1.1.1', answer.path)
            assert.is(fromNginx.headers.get('cache-control'), 'public, max-age=60', answer.path)
        }
        assert.ok(srls.size > 0)
        for (const [url, hash] of srls) {
            const fromNginx = await getBytes(`${nginx.url}${url}`)
            assert.is(fromNginx.status, 200, url)
            assert.is(sha1(fromNginx.body), hash, `the bytes at ${url} hash to its Srl's hash`)
            assert.ok(fromNginx.body.equals((await getBytes(`${live.url}${url}`)).body), url)
            assert.is(
                fromNginx.headers.get('cache-control'),
                'public, max-age=31536000, immutable',
                url,
            )
            assert.is(fromNginx.headers.get(version), '1.1.1', url)
        }
        // Requests the app makes beyond the crawl: a quick search (refused alike), a page number
        // spelled with a zero, and parameters a static host cannot tell apart (ignored alike).
        for (const path of [
            `/${name}/levels/list?type=quick&keywords=night`,
            `/${name}/levels/list?localization=en&page=00`,
            `/${name}/levels/list?type=advanced&minRating=30`,
            `/${name}/info?localization=xx`,
        ]) {
            const [fromLive, fromNginx] = [
                await getBytes(`${live.url}${path}`),
                await getBytes(`${nginx.url}${path}`),
            ]
            assert.is(fromNginx.status, fromLive.status, path)
            assert.ok(
                fromNginx.body.equals(fromLive.body),
                `bytes of ${path}: ${fromNginx.body.toString().slice(0, 200)} / ${fromLive.body.toString().slice(0, 200)}`,
            )
        }
        const pages = await comparePages(live.url, nginx.url, unlinked)
        return { answers, pages, result, out }
    } finally {
        await nginx.stop()
        await live.close()
    }
}

/** The path of `address`, which the pages' links start with. */
const basePath = new URL(address).pathname
/** The links of a page to pages and assets of the same site, as paths below the root. */
const siteLinks = (html: string) =>
    [...html.matchAll(/ (?:href|src)="([^"]+)"/g)]
        .map(([, link]) => link!.replaceAll('&amp;', '&'))
        .filter(
            (link) =>
                link.startsWith(`${basePath}/`) && !/^\/shelf\/(sonolus|service)\//.test(link),
        )
        .map((link) => link.slice(basePath.length))

/**
 * Every web page and asset a visitor reaches by links from the live server's home page (and from
 * `unlinked` pages, which only their address opens) answers the same status and bytes from
 * nginx, as HTML with a short lifetime, and offers no search.
 */
const comparePages = async (liveUrl: string, nginxUrl: string, unlinked: string[]) => {
    const pages: Fetched[] = []
    const queue = ['/', ...unlinked]
    for (const seen = new Set(queue); queue.length > 0;) {
        const path = queue.shift()!
        const [fromLive, fromNginx] = [
            await getBytes(`${liveUrl}${path}`),
            await getBytes(`${nginxUrl}${path}`),
        ]
        assert.is(fromLive.status, 200, `the live server answers ${path}`)
        assert.is(fromNginx.status, 200, `status of ${path}`)
        assert.ok(
            fromNginx.body.equals(fromLive.body),
            `bytes of ${path}:\nnginx ${fromNginx.body.toString().slice(0, 300)}\nlive  ${fromLive.body.toString().slice(0, 300)}`,
        )
        if (path.startsWith('/_shelf/assets/')) {
            assert.is(
                fromNginx.headers.get('cache-control'),
                'public, max-age=31536000, immutable',
                path,
            )
            continue
        }
        assert.is(fromNginx.headers.get('content-type'), 'text/html; charset=utf-8', path)
        assert.is(fromNginx.headers.get('cache-control'), 'public, max-age=60', path)
        assert.is(
            fromNginx.headers.get('content-security-policy'),
            fromLive.headers.get('content-security-policy'),
            path,
        )
        const html = fromLive.body.toString('utf8')
        assert.not.match(html, /<form|type="search"|name="keywords"/, `${path} offers a search`)
        assert.not.match(html, /live\.js|data-live/, `${path} loads the live preview`)
        pages.push({ path, status: fromLive.status, body: fromLive.body })
        for (const link of siteLinks(html)) {
            if (seen.has(link)) continue
            seen.add(link)
            queue.push(link)
        }
    }
    // The browser's language does not pick the page's: the copy cannot ask the browser.
    const japanese = await fetch(`${liveUrl}/`, { headers: { 'accept-language': 'ja' } })
    assert.ok(
        Buffer.from(await japanese.arrayBuffer()).equals(pages[0]!.body),
        'Accept-Language changes the exported home page',
    )
    return pages
}

/** What a static host cannot do is not offered anywhere in the answers. */
const assertNothingOmittedAdvertised = (answers: Fetched[], name: string) => {
    for (const answer of answers) {
        const body = json(answer)
        const route = answer.path.split('?')[0]!.slice(name.length + 2)
        if (route === 'info') {
            const buttons = (body.buttons as { type: string }[]).map((button) => button.type)
            for (const omitted of ['authentication', 'room', 'configuration'])
                assert.not.ok(buttons.includes(omitted), `${omitted} button`)
            assert.equal((body.configuration as { options: unknown[] }).options, [])
        }
        if ('searches' in body) assert.equal(body.searches, [], `searches of ${route}`)
        if ('creates' in body) assert.equal(body.creates, [], `creates of ${route}`)
        if ('actions' in body) assert.equal(body.actions, [], `actions of ${route}`)
        if ('submits' in body) assert.equal(body.submits, [], `submits of ${route}`)
        for (const section of (body.sections as Json[] | undefined) ?? []) {
            assert.ok(
                section.searchValues === undefined || section.searchValues === 'type=quick',
                `a section of ${route} leads to a search: ${String(section.searchValues)}`,
            )
        }
        for (const comment of [
            ...((body.topComments as Json[] | undefined) ?? []),
            ...((body.comments as Json[] | undefined) ?? []),
        ])
            assert.equal(comment.actions, [], route)
    }
}

test.after(async () => {
    await Promise.all(scratch.map((folder) => rm(folder, { recursive: true, force: true })))
})

test('the example content, exported and served by nginx, answers every guest URL as the live server does', async () => {
    // The example declares what the copy omits, so its absence below means something.
    const full = await startTestServer({
        name: 'sonolus',
        multiplayer: { url: 'wss://rooms.example' },
    })
    try {
        const info = (await getJson<Json>(`${full.root}/info`)).body
        assert.ok((info.configuration as { options: unknown[] }).options.length > 0)
        assert.ok((info.buttons as { type: string }[]).some((button) => button.type === 'room'))
        assert.ok(
            ((await getJson<Json>(`${full.root}/levels/info`)).body.searches as unknown[]).length >
                0,
        )
    } finally {
        await full.stop()
    }
    // secret-garden is unlisted: no page links to it, its shared address opens it; so does a person's.
    const { answers, pages } = await compareWithNginx(exampleContent, 'sonolus', [
        '/levels/secret-garden',
        '/users/alice',
    ])
    const pagePaths = pages.map((page) => page.path)
    for (const reached of [
        '/',
        '/levels/list',
        '/levels/first-steps',
        '/levels/first-steps/community/comments/list',
        '/levels/first-steps/leaderboards/top',
        '/users/alice',
    ]) {
        assert.ok(pagePaths.includes(reached), `the pages' crawl reaches ${reached}`)
    }
    const paths = answers.map((answer) => answer.path.split('?')[0])
    for (const reached of [
        '/sonolus/levels/first-steps/community/comments/list',
        '/sonolus/levels/first-steps/leaderboards/top/records/list',
        // A level's authorUser opens its author.
        '/sonolus/users/alice',
    ]) {
        assert.ok(paths.includes(reached), `the crawl reaches ${reached}`)
    }
    assert.ok(
        paths.some((path) => /\/leaderboards\/[^/]+\/records\/(?!list$)[^/]+$/.test(path!)),
        'the crawl reaches a record',
    )
    assertNothingOmittedAdvertised(answers, 'sonolus')
})

test('a generated pack tree with several list pages, exported and served by nginx, answers as the live server does', async () => {
    const tree = await generatePackTree(await scratchFolder('shelf-pack-'), { levels: 45 })
    const { answers, pages } = await compareWithNginx(tree.dir, 'service')
    assert.ok(
        answers.some((answer) => answer.path.startsWith('/service/levels/list?page=2&')),
        'three pages of levels are crawled',
    )
    assert.ok(
        pages.some((page) => page.path === '/levels/list?page=2'),
        "three pages of the levels' web list are crawled",
    )
    assert.ok(
        answers.filter(
            (answer) =>
                /^\/service\/levels\/[^/?]+\?/.test(answer.path) &&
                !/\/(list|info)\?/.test(answer.path),
        ).length >= 45,
        'every level',
    )
    assertNothingOmittedAdvertised(answers, 'service')
})

test('a second export writes only what changed and removes what is no longer produced', async () => {
    const content = await copyContent()
    scratch.push(content)
    const out = await scratchFolder('shelf-export-')
    const options: ExportOptions = {
        out,
        address,
        content,
        name: 'sonolus',
        drafts: false,
        allowProblems: false,
    }
    const first = await exportSite(options)
    assert.ok(first.exported && first.report.written > 100 && first.report.unchanged === 0)
    await writeFile(join(out, 'public/sonolus/levels/stray.json'), 'left over')

    const again = await exportSite(options)
    assert.ok(again.exported)
    assert.is(again.report.written, 0)
    assert.is(again.report.removed, 1)
    assert.equal(again.report.changes, ['public/sonolus/levels/stray.json'])

    const record = join(content, 'levels/city-lights/item.yaml')
    await writeFile(
        record,
        (await readFile(record, 'utf8')).replace('en: City Lights', 'en: City Lights (Remastered)'),
    )
    await rm(join(content, 'levels/secret-garden'), { recursive: true })
    const edited = await exportSite(options)
    assert.ok(edited.exported)
    const { report } = edited
    assert.ok(
        report.changes.includes('public/sonolus/levels/city-lights/index.json'),
        report.changes.join('\n'),
    )
    assert.ok(report.removed >= 1)
    assert.is(
        await stat(join(out, 'public/sonolus/levels/secret-garden')).catch(() => undefined),
        undefined,
        'the removed level is removed, folder and all',
    )
    assert.ok(
        report.written < first.report.written / 2,
        `an edit rewrites a part: ${report.written} of ${first.report.written}`,
    )
    assert.match(
        await readFile(join(out, 'public/sonolus/levels/city-lights/index.json'), 'utf8'),
        'City Lights (Remastered)',
    )
})

test('one locale per export; nginx.conf sets neither listen nor root; _headers and _redirects name every path', async () => {
    const out = await scratchFolder('shelf-export-')
    const result = await exportSite({
        out,
        address,
        content: exampleContent,
        name: 'sonolus',
        drafts: false,
        allowProblems: false,
        locale: 'ja',
    })
    assert.ok(result.exported && result.locale === 'ja')
    assert.match(
        await readFile(join(out, 'public/sonolus/levels/city-lights/index.json'), 'utf8'),
        '"title":"シティライツ"',
    )
    const page = await readFile(join(out, 'public/levels/city-lights/page-0.html'), 'utf8')
    assert.match(page, '<html lang="ja">')
    assert.match(page, 'シティライツ')
    assert.not.match(page, 'class="languages"')
    const nginx = await readFile(join(out, 'nginx.conf'), 'utf8')
    assert.not.match(nginx, /^\s*(listen|root)\s/m)
    const headers = await readFile(join(out, 'public/_headers'), 'utf8')
    assert.match(
        headers,
        '/sonolus/repository/*\n  Sonolus-Version: 1.1.1\n  Content-Type: application/octet-stream\n  Cache-Control: public, max-age=31536000, immutable',
    )
    assert.match(
        headers,
        '/sonolus/levels/*\n  Sonolus-Version: 1.1.1\n  Content-Type: application/json; charset=utf-8\n  Cache-Control: public, max-age=60',
    )
    const redirects = await readFile(join(out, 'public/_redirects'), 'utf8')
    assert.match(
        redirects,
        '/sonolus/:type/list  page=:page  /sonolus/:type/list/page-:page.json  200',
    )
    assert.match(redirects, '/sonolus/*  /sonolus/:splat/index.json  200')
})

test('a home-page button of a type without content (users) gets its landing page and list too', async () => {
    const content = await copyContent()
    scratch.push(content)
    const settings = join(content, 'server.yaml')
    await writeFile(
        settings,
        `${await readFile(settings, 'utf8')}\nbuttons:\n  - type: level\n  - type: user\n`,
    )
    const out = await scratchFolder('shelf-export-')
    assert.ok(
        (
            await exportSite({
                out,
                address,
                content,
                name: 'sonolus',
                drafts: false,
                allowProblems: false,
            })
        ).exported,
    )
    const live = await startShelf(
        exportedServerOptions(
            { address, content, name: 'sonolus', drafts: false },
            await scratchFolder('shelf-cache-'),
        ),
        { port: 0, host: '127.0.0.1' },
    )
    try {
        const exported: [string, string][] = [
            ['/sonolus/users/info', 'users/info/index.json'],
            ['/sonolus/users/list', 'users/list/page-0.json'],
        ]
        for (const [path, file] of exported) {
            const fromLive = await getBytes(`${live.url}${path}?localization=en`)
            assert.is(fromLive.status, 200)
            assert.ok(
                (await readFile(join(out, 'public/sonolus', file))).equals(fromLive.body),
                path,
            )
        }
    } finally {
        await live.close()
    }
})

test('shelf export: refuses a folder inside the content or not an export, and content with errors unless --allow-problems', async () => {
    const content = await copyContent()
    scratch.push(content)
    const inside = await runShelf([
        'export',
        join(content, 'site'),
        '--address',
        address,
        '--content',
        content,
    ])
    assert.is(inside.code, 1, describeRun(inside))
    assert.match(inside.stderr, 'inside the content folder')

    const other = await scratchFolder('shelf-other-')
    await writeFile(join(other, 'notes.txt'), 'mine')
    const notExport = await runShelf(['export', other, '--address', address, '--content', content])
    assert.is(notExport.code, 1, describeRun(notExport))
    assert.match(notExport.stderr, 'not an earlier export')
    assert.is(await readFile(join(other, 'notes.txt'), 'utf8'), 'mine')

    const noAddress = await runShelf(['export', other])
    assert.is(noAddress.code, 2, describeRun(noAddress))

    await writeFile(join(content, 'levels/city-lights/item.yaml'), 'titel: Oops\n')
    const out = join(await scratchFolder('shelf-export-'), 'site')
    const broken = await runShelf(['export', out, '--address', address, '--content', content])
    assert.is(broken.code, 1, describeRun(broken))
    assert.match(broken.stdout, /error levels\/city-lights\/item\.yaml:1:1 {2}titel/)
    assert.match(broken.stderr, 'nothing exported')
    const allowed = await runShelf([
        'export',
        out,
        '--address',
        address,
        '--content',
        content,
        '--allow-problems',
    ])
    assert.is(allowed.code, 0, describeRun(allowed))
    assert.match(allowed.stdout, /exported .* written/)
    assert.not.ok(
        (await readFile(join(out, 'public/sonolus/levels/list/page-0.json'), 'utf8')).includes(
            'city-lights',
        ),
    )
})

test.run()
