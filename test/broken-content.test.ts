/**
 * A content folder with mistakes in it: the server starts anyway, serves everything that is
 * fine, leaves out what is broken (and what depends on it), and reports each problem with its
 * file, line, field and a message a person can act on.
 */
import type {
    LevelItem,
    ServerInfo,
    ServerItemCommunityCommentList,
    ServerItemDetails,
    ServerItemInfo,
    ServerItemList,
} from '@sonolus/core'
import { cp, mkdir, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import type { Problem } from '../src/content/problems.js'
import { startShelf, type RunningShelf } from '../src/server.js'
import { snapshotTree } from './support/fixtures.js'
import { assertShape } from './support/response-shapes.js'
import { exampleContent, getJson, startTestServer, temporaryFolder } from './support/server.js'

/** The copy lives in `parent/content`, so everything the server writes shows up in one listing. */
let parent: string
let content: string
let shelf: RunningShelf
let root: string
let before: Map<string, string>

const level = (name: string) => join(content, 'levels', name)

/** A new level with a record file of our making and the resources of an example level. */
const addLevel = async (name: string, file: string, text: string) => {
    await mkdir(level(name), { recursive: true })
    for (const resource of ['cover.png', 'bgm.mp3', 'data.json'])
        await cp(join(level('morning-dew'), resource), join(level(name), resource))
    await writeFile(join(level(name), file), text)
}

/** Levels that load fine, and levels left out because of their own or a dependency's problem. */
const healthyLevels = ['city-lights', 'first-light', 'first-steps', 'morning-dew', 'thunder-road']
const brokenLevels = [
    'broken-json',
    'broken-yaml',
    'typo-key',
    'wrong-type',
    'night-drive',
    'missing-engine',
    'far-engine',
    'draft-engine',
    'two-records',
]
const brokenLevelTitles = [
    'Broken JSON',
    'Broken YAML',
    'Typo',
    'Wrong type',
    'Night Drive',
    'Missing engine',
    'Far engine',
    'Draft engine',
    'Two records',
]

test.before(async () => {
    assertShape('ServerMessage', {}) // compile the response schemas before any request
    parent = await temporaryFolder('shelf-broken-')
    content = join(parent, 'content')
    await cp(exampleContent, content, {
        recursive: true,
        filter: (path) => !path.includes('/.shelf'),
    })

    // Record files that cannot be read.
    await addLevel(
        'broken-json',
        'item.json',
        '{\n    "title": "Broken JSON",\n    "rating": 5\n    "engine": "shelf-tap"\n}\n',
    )
    await addLevel(
        'broken-yaml',
        'item.yaml',
        'title: Broken YAML\nrating: 5\nauthor: Alice: Bob\n',
    )
    // Records that read but do not validate.
    await addLevel('typo-key', 'item.yaml', 'titel: Typo\nrating: 5\n')
    await addLevel('wrong-type', 'item.yaml', 'title: Wrong type\nrating: "hard"\n')
    // A missing required resource, in a level that two playlists and a replay use.
    await rm(join(level('night-drive'), 'cover.png'))
    // References that lead nowhere.
    await addLevel(
        'missing-engine',
        'item.yaml',
        'title: Missing engine\nrating: 5\nengine: shelf-tapp\n',
    )
    await addLevel(
        'far-engine',
        'item.yaml',
        'title: Far engine\nrating: 5\nengine: no-such-thing-at-all\n',
    )
    await cp(join(content, 'engines/shelf-hold'), join(content, 'engines/beta-engine'), {
        recursive: true,
    })
    await writeFile(
        join(content, 'engines/beta-engine/item.md'),
        '---\ntitle: Beta engine\ndraft: true\nskin: shelf-classic\nbackground: sunset\neffect: retro-beeps\nparticle: confetti\n---\nNot ready.\n',
    )
    await addLevel(
        'draft-engine',
        'item.yaml',
        'title: Draft engine\nrating: 5\nengine: beta-engine\n',
    )
    // A playlist of a good level and a level whose reference is broken.
    await mkdir(join(content, 'playlists/broken-mix'))
    await writeFile(
        join(content, 'playlists/broken-mix/item.yaml'),
        'title: Broken mix\nlevels: [first-steps, missing-engine]\n',
    )
    // Folders that cannot be items.
    await addLevel('two-records', 'item.yaml', 'title: Two records\nrating: 5\n')
    await writeFile(
        join(level('two-records'), 'item.json'),
        '{ "title": "Two records", "rating": 5 }\n',
    )
    await addLevel('info', 'item.yaml', 'title: Info\nrating: 5\n')
    await addLevel('bad name!', 'item.yaml', 'title: Bad name\nrating: 5\n')
    // A comment without an author, next to twelve good ones.
    await writeFile(
        join(level('first-steps'), 'comments/2026-01-05-dave.md'),
        '---\ntime: 2026-01-05T12:10:00Z\n---\nNo author here.\n',
    )
    // A second leaderboard that names a replay that does not exist.
    await writeFile(
        join(level('first-steps'), 'leaderboards/weekly.yaml'),
        'title: Weekly\nrecords:\n  - player: Zed\n    value: "1"\n    replays: [ghost-run]\n',
    )
    // Folder defaults and server settings that do not parse or validate.
    await writeFile(join(content, 'posts/_defaults.yaml'), 'author: { en: The Shelf team\n')
    await writeFile(
        join(content, 'server.yaml'),
        'title: Broken server\nlevels:\n  paging: pages\n',
    )

    before = await snapshotTree(parent)
    // No cache option: the server uses its default, `.shelf` inside the content folder.
    shelf = await startShelf(
        { content, name: 'service', drafts: false, address: 'https://shelf.example' },
        { port: 0, host: '127.0.0.1' },
    )
    root = `${shelf.url}/service`
})

test.after(async () => {
    await shelf?.close().catch(() => undefined)
    if (parent) await rm(parent, { recursive: true, force: true })
})

const problems = () => shelf.catalog().problems

/** The first problem about `file` (and `field`, when given); it must be an error. */
const problemAbout = (file: string, field?: string): Problem => {
    const found = problems().filter(
        (problem) => problem.file === file && (field === undefined || problem.field === field),
    )
    assert.ok(
        found.length > 0,
        `expected a problem about ${file}${field ? ` (${field})` : ''}; got:\n${problems()
            .map((problem) => JSON.stringify(problem))
            .join('\n')}`,
    )
    const [problem] = found
    assert.is(problem!.severity, 'error', `${file}: what is left out is an error, not a warning`)
    return problem!
}

const listAll = async (type: string) => {
    const names: string[] = []
    for (let page = 0; ; page++) {
        const { status, body } = await getJson<ServerItemList<{ name: string }>>(
            `${root}/${type}/list?page=${page}`,
        )
        assert.is(status, 200)
        names.push(...body.items.map((item) => item.name))
        if (page + 1 >= body.pageCount) return names
    }
}

const assertNotFound = async (path: string) => {
    const { status, body } = await getJson<{ message?: string }>(`${root}${path}`)
    assert.is(status, 404, `GET ${path}`)
    assertShape('ServerMessage', body)
}

test('the server starts and serves every item that is fine', async () => {
    const info = await getJson<ServerInfo>(`${root}/info`)
    assert.is(info.status, 200)
    assertShape('ServerInfo', info.body)
    assert.equal((await listAll('levels')).sort(), healthyLevels)
    for (const name of [...healthyLevels, 'secret-garden']) {
        const { status, body } = await getJson(`${root}/levels/${name}`)
        assert.is(status, 200, name)
        assertShape('LevelDetails', body)
    }
    assert.equal((await listAll('engines')).sort(), ['pjsekai', 'shelf-hold', 'shelf-tap'])
    assert.equal((await listAll('skins')).sort(), ['neon-glow', 'sekai-basic', 'shelf-classic'])
    assert.equal((await listAll('replays')).sort(), ['alice-first-steps', 'dave-first-steps'])
    assert.equal((await listAll('posts')).sort(), ['patch-notes', 'welcome'])
    const leaderboard = await getJson(`${root}/levels/first-steps/leaderboards/top`)
    assert.is(leaderboard.status, 200)
    assertShape('ServerItemLeaderboardDetails', leaderboard.body)
})

test('every problem names a file and says what is wrong', () => {
    assert.ok(problems().length >= 15, 'one problem or more per mistake')
    for (const problem of problems()) {
        assert.ok(problem.file, JSON.stringify(problem))
        assert.ok(problem.message.length > 10, JSON.stringify(problem))
    }
})

test('invalid JSON in an item.json: the line and column of the error', () => {
    const problem = problemAbout('levels/broken-json/item.json')
    assert.match(problem.message, /invalid JSON/)
    assert.is(problem.line, 4)
    assert.is(problem.column, 5)
})

test('invalid YAML: the line of the error', () => {
    const problem = problemAbout('levels/broken-yaml/item.yaml')
    assert.match(problem.message, /invalid YAML/)
    assert.is(problem.line, 3)
})

test('an unknown key: its line, and the key it was probably meant to be', () => {
    const problem = problemAbout('levels/typo-key/item.yaml', 'titel')
    assert.is(problem.line, 1)
    assert.match(problem.message, /unknown field "titel"/)
    assert.match(problem.message, /did you mean "title"/)
})

test('a value of the wrong type: field, line, what was expected and what was found', () => {
    const problem = problemAbout('levels/wrong-type/item.yaml', 'rating')
    assert.is(problem.line, 2)
    assert.match(problem.message, /number/)
    assert.match(problem.message, /"hard"/)
})

test('a missing required resource names the role and the files that would do', () => {
    const problem = problemAbout('levels/night-drive/item.yaml', 'cover')
    assert.match(problem.message, /cover\.png/)
    assert.match(problem.message, /levels\/night-drive/)
})

test('a reference to a missing engine: its line, and "did you mean" when a name is close', () => {
    const close = problemAbout('levels/missing-engine/item.yaml', 'engine')
    assert.is(close.line, 3)
    assert.match(close.message, /engine "shelf-tapp"/)
    assert.match(close.message, /did you mean "shelf-tap"/)
    const far = problemAbout('levels/far-engine/item.yaml', 'engine')
    assert.match(far.message, /engine "no-such-thing-at-all"/)
    assert.not.match(far.message, /did you mean/)
})

test('a level using a draft engine is told about --drafts', async () => {
    const problem = problemAbout('levels/draft-engine/item.yaml', 'engine')
    assert.is(problem.line, 3)
    assert.match(problem.message, /beta-engine/)
    assert.match(problem.message, /draft/)
    assert.match(problem.message, /--drafts/)
    // …and with --drafts it serves.
    const drafts = await startTestServer({ content, drafts: true })
    try {
        const { status, body } = await getJson<ServerItemDetails<LevelItem>>(
            `${drafts.root}/levels/draft-engine`,
        )
        assert.is(status, 200)
        assert.is(body.item.engine.name, 'beta-engine')
    } finally {
        await drafts.stop()
    }
})

test('two record files in one folder', () => {
    const problem = problemAbout('levels/two-records')
    assert.match(problem.message, /item\.json/)
    assert.match(problem.message, /item\.yaml/)
})

test('folders named "info" or "bad name!" are reported and skipped', async () => {
    const reserved = problems().find(
        (problem) => problem.file.startsWith('levels/info/') || problem.file === 'levels/info',
    )
    assert.ok(reserved, 'a problem about levels/info')
    assert.match(reserved.message, /"info"/)
    const unsafe = problems().find((problem) => problem.file.startsWith('levels/bad name!'))
    assert.ok(unsafe, 'a problem about "levels/bad name!"')
    assert.match(unsafe.message, /"bad name!"/)
    assert.match(unsafe.message, /A-Z a-z 0-9/)
    // /levels/info is still the type's landing page, not an item.
    const info = await getJson<ServerItemInfo>(`${root}/levels/info`)
    assert.is(info.status, 200)
    assertShape('ServerItemInfo', info.body)
    await assertNotFound(`/levels/${encodeURIComponent('bad name!')}`)
})

test('a comment without an author is left out; the item and its other comments stay', async () => {
    const problem = problemAbout('levels/first-steps/comments/2026-01-05-dave.md')
    assert.match(problem.message, /author/)
    const details = await getJson<ServerItemDetails<LevelItem>>(`${root}/levels/first-steps`)
    assert.is(details.status, 200)
    assert.is(details.body.hasCommunity, true)
    const comments: string[] = []
    for (let page = 0; page < 2; page++) {
        const { status, body } = await getJson<ServerItemCommunityCommentList>(
            `${root}/levels/first-steps/community/comments/list?page=${page}`,
        )
        assert.is(status, 200)
        comments.push(...body.comments.map((comment) => comment.name))
    }
    assert.is(comments.length, 12)
    assert.not.ok(comments.includes('2026-01-05-dave'))
    assert.ok(comments.includes('2026-01-06-sakura'))
})

test('a leaderboard naming a missing replay is left out; the other leaderboard stays', async () => {
    const problem = problemAbout('levels/first-steps/leaderboards/weekly.yaml')
    assert.is(problem.field, 'records[0].replays')
    assert.match(problem.message, /ghost-run/)
    if (problem.line !== undefined) assert.is(problem.line, 5)
    const { body } = await getJson<ServerItemDetails<LevelItem>>(`${root}/levels/first-steps`)
    assert.equal(
        body.leaderboards.map((leaderboard) => leaderboard.name),
        ['top'],
    )
    await assertNotFound('/levels/first-steps/leaderboards/weekly')
})

test('a broken _defaults.yaml is reported with its line; the folder still serves', async () => {
    const problem = problemAbout('posts/_defaults.yaml')
    assert.match(problem.message, /invalid YAML/)
    assert.type(problem.line, 'number')
    const { status } = await getJson(`${root}/posts/list`)
    assert.is(status, 200)
})

test('a broken server.yaml: the server starts under a neutral title and the problem names the field', async () => {
    const problem = problemAbout('server.yaml', 'levels.paging')
    assert.is(problem.line, 3)
    assert.match(problem.message, /"pages"/)
    assert.match(problem.message, /did you mean "page"/)
    const { status, body } = await getJson<ServerInfo>(`${root}/info`)
    assert.is(status, 200)
    assertShape('ServerInfo', body)
    assert.ok(body.title.length > 0, 'a title')
    assert.is.not(body.title, 'Broken server', 'nothing of the broken file is used')
})

test('a broken item is a 404 and absent from lists, searches and sections', async () => {
    for (const name of brokenLevels) await assertNotFound(`/levels/${name}`)
    const listed = await listAll('levels')
    for (const name of brokenLevels) assert.not.ok(listed.includes(name), `${name} is not listed`)
    for (const title of brokenLevelTitles) {
        const { body } = await getJson<ServerItemList<LevelItem>>(
            `${root}/levels/list?type=quick&keywords=${encodeURIComponent(title)}`,
        )
        assert.equal(
            body.items.filter((item) => brokenLevels.includes(item.name)),
            [],
            `quick search for "${title}"`,
        )
    }
    const info = await getJson<ServerItemInfo>(`${root}/levels/info`)
    for (const section of info.body.sections) {
        for (const item of section.items)
            assert.ok(
                healthyLevels.includes(item.name),
                `section ${section.title} shows ${item.name}`,
            )
    }
    const engine = await getJson<ServerItemDetails<unknown>>(`${root}/engines/shelf-tap`)
    for (const section of engine.body.sections) {
        for (const item of section.items)
            assert.not.ok(brokenLevels.includes(item.name), `engine page shows ${item.name}`)
    }
})

test('items using a broken item are left out too, with a message saying why', async () => {
    // A level whose own reference is broken, used by a playlist.
    await assertNotFound('/playlists/broken-mix')
    const mix = problemAbout('playlists/broken-mix/item.yaml', 'levels')
    assert.match(mix.message, /level "missing-engine"/)
    assert.match(mix.message, /problem/)
    assert.match(mix.message, /playlist "broken-mix" is left out/)
    // A level that is left out for a problem of its own (a missing cover), used by two playlists and a replay.
    for (const [path, file, field] of [
        ['/playlists/after-dark', 'playlists/after-dark/item.md', 'levels'],
        ['/playlists/starter-pack', 'playlists/starter-pack/item.yaml', 'levels'],
        ['/replays/bob-night-drive', 'replays/bob-night-drive/item.md', 'level'],
    ] as const) {
        await assertNotFound(path)
        const problem = problemAbout(file, field)
        assert.match(problem.message, /level "night-drive"/)
        assert.match(problem.message, /is left out/)
        // night-drive exists; it is left out because of its own problem, and the message must say so.
        assert.not.match(problem.message, /does not exist/, `${file}: ${problem.message}`)
        assert.match(problem.message, /problem/, `${file}: ${problem.message}`)
    }
})

// Last, so that it sees whatever start-up and every request above wrote.
test('nothing outside the content folder is written, and inside it only the .shelf cache', async () => {
    const after = await snapshotTree(parent)
    for (const [path, digest] of before) assert.is(after.get(path), digest, `${path} is unchanged`)
    const added = [...after.keys()].filter((path) => !before.has(path))
    assert.ok(added.length > 0, 'the cache was written')
    for (const path of added) assert.ok(path.startsWith('content/.shelf/'), `${path} was written`)
})

test.run()
