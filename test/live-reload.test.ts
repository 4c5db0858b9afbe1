/**
 * Live editing: one watching server on a private copy of the example content. Every change of
 * the folder (a record, a resource, a comment, a leaderboard, `server.yaml`, a defaults file)
 * shows in the API without a restart; editor saves and bursts work; editor leftovers are
 * ignored; a broken item keeps its last good version serving and is reported at
 * `/_shelf/problems` until it is fixed.
 *
 * Each change waits for the server's own `reload` report instead of sleeping.
 */
import type {
    LevelItem,
    ServerInfo,
    ServerItemCommunityCommentList,
    ServerItemDetails,
    ServerItemLeaderboardDetails,
    ServerItemList,
} from '@sonolus/core'
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import type { Problem } from '../src/content/problems.js'
import { startShelf, type ReloadReport } from '../src/server.js'
import { getBytes, sha1, tinyMp3, tinyPng, writeTree, type FileTree } from './support/fixtures.js'
import { afterReload } from './support/reloads.js'
import { eventually } from './support/eventually.js'
import {
    copyContent,
    getJson,
    startTestServer,
    temporaryFolder,
    type TestServer,
} from './support/server.js'

const test = suite('live reload')

let content: string
let server: TestServer
/** Every reload of the whole run, to check at the end what never showed up in one. */
const allReports: ReloadReport[] = []

const ownerToken = 'the owner token of the live reload test'

type ProblemsBody = { errors: number; warnings: number; problems: Problem[] }

const file = (path: string) => join(content, path)
const get = <T>(path: string) => getJson<T>(`${server.root}${path}`)
const problems = async () => {
    // A server given --address shows its problems only with the owner token.
    const response = await getJson<ProblemsBody>(`${server.url}/_shelf/problems`, {
        headers: { Authorization: `Bearer ${ownerToken}` },
    })
    assert.is(response.status, 200, '/_shelf/problems answers')
    return response.body
}
const describeProblems = (list: readonly Problem[]) =>
    list.map((problem) => JSON.stringify(problem)).join('\n') || '(none)'

const levelDetails = async (name: string) => get<ServerItemDetails<LevelItem>>(`/levels/${name}`)
const levelTitle = async (name: string) => {
    const { status, body } = await levelDetails(name)
    assert.is(status, 200, `levels/${name} is served`)
    return body.item.title
}

/** Every level name of the list, across all its pages. */
const listedLevels = async () => {
    const first = await get<ServerItemList<LevelItem>>('/levels/list')
    assert.is(first.status, 200, 'levels/list answers')
    const items = [...first.body.items]
    for (let page = 1; page < first.body.pageCount; page++) {
        const next = await get<ServerItemList<LevelItem>>(`/levels/list?page=${page}`)
        assert.is(next.status, 200, `levels/list?page=${page} answers`)
        items.push(...next.body.items)
    }
    return items
}

/**
 * Performs `action` and fails if any reload happens within `ms`: the one time-bounded wait of
 * this suite, for changes that must not cause a reload at all.
 */
const expectNoReload = async (running: TestServer, ms: number, action: () => Promise<unknown>) => {
    const seen: ReloadReport[] = []
    const listener = (report: ReloadReport) => seen.push(report)
    running.events.on('reload', listener)
    try {
        await action()
        await new Promise((resolve) => setTimeout(resolve, ms))
    } finally {
        running.events.off('reload', listener)
    }
    assert.is(
        seen.length,
        0,
        `expected no reload within ${ms} ms, got ${seen.length}, with paths: ${JSON.stringify(seen.map((report) => report.paths))}`,
    )
}

/** Editor leftovers and hidden files: dot, swap, backup and temp files. */
const isLeftover = (name: string) =>
    name.startsWith('.') || name.endsWith('~') || /\.(swp|swx|tmp|bak|orig)$/.test(name)
/** JetBrains' safe-write files, checked by their own test so that its failure stays in one place. */
const isJetBrainsLeftover = (name: string) => /___jb_(tmp|old)___$/.test(name)
const leftoverPaths = (
    reports: readonly ReloadReport[],
    leftover = (name: string) => isLeftover(name) || isJetBrainsLeftover(name),
) => reports.flatMap((report) => report.paths).filter((path) => path.split('/').some(leftover))

test.before(async () => {
    content = await copyContent()
    server = await startTestServer({
        content,
        watch: true,
        address: 'https://shelf.example',
        ownerToken,
    })
    server.events.on('reload', (report) => allReports.push(report))
})

test.after(async () => {
    await server?.stop()
    if (content) await rm(content, { recursive: true, force: true })
})

// First, while nothing else is pending: a reload from an earlier change would spoil the wait.
test('swap, backup and dot files cause no reload and no problems', async () => {
    const before = await problems()
    assert.is(
        before.errors + before.warnings,
        0,
        `the example content starts without problems:\n${describeProblems(before.problems)}`,
    )
    await expectNoReload(server, 500, async () => {
        await writeFile(file('levels/first-steps/.item.md.swp'), 'vim swap')
        await writeFile(
            file('levels/first-steps/item.md~'),
            '---\ntitle: [a backup that does not parse\n',
        )
        await writeFile(file('levels/first-steps/.DS_Store'), 'finder')
        await writeFile(file('levels/first-steps/cover.png.bak'), 'not a png')
        await writeFile(file('.DS_Store'), 'finder')
    })
    const after = await problems()
    assert.equal(after.problems, [], `no problems:\n${describeProblems(after.problems)}`)
    assert.is(await levelTitle('first-steps'), 'First Steps')
})

test('editing a record in place shows in details and list', async () => {
    const path = 'levels/first-steps/item.md'
    const text = await readFile(file(path), 'utf8')
    assert.ok(text.includes('  en: First Steps\n'), 'the record has the title to edit')
    await afterReload(server, [path], () =>
        writeFile(file(path), text.replace('  en: First Steps\n', '  en: First Steps (edited)\n')),
    )

    assert.is(await levelTitle('first-steps'), 'First Steps (edited)')
    const listed = (await listedLevels()).find((item) => item.name === 'first-steps')
    assert.is(listed?.title, 'First Steps (edited)', 'the list shows the new title')
    const japanese = await get<ServerItemDetails<LevelItem>>('/levels/first-steps?localization=ja')
    assert.is(japanese.body.item.title, 'はじめの一歩', 'the other locale is unchanged')
})

test('an atomic save (write a temp file, rename it over the record) shows, and the temp file never counts', async () => {
    // A generic atomic writer: `item.yaml.tmp`, renamed over the original.
    const tmpPath = 'levels/night-drive/item.yaml'
    const tmpText = await readFile(file(tmpPath), 'utf8')
    const { reports: tmpReports } = await afterReload(server, [tmpPath], async () => {
        await writeFile(
            file(`${tmpPath}.tmp`),
            tmpText.replace('en: Night Drive,', 'en: Night Drive (tmp save),'),
        )
        await rename(file(`${tmpPath}.tmp`), file(tmpPath))
    })
    assert.is(await levelTitle('night-drive'), 'Night Drive (tmp save)')

    // vim (backupcopy=no): the original becomes the backup `item.json~`, the new text is written, the backup goes.
    // (Another file than above: a second save of one file right after its reload is its own test below.)
    const vimPath = 'levels/thunder-road/item.json'
    const vimText = await readFile(file(vimPath), 'utf8')
    assert.ok(vimText.includes('"en": "Thunder Road"'))
    const { reports: vimReports } = await afterReload(server, [vimPath], async () => {
        await rename(file(vimPath), file(`${vimPath}~`))
        await writeFile(
            file(vimPath),
            vimText.replace('"en": "Thunder Road"', '"en": "Thunder Road (vim save)"'),
        )
        await rm(file(`${vimPath}~`))
    })
    // Not atomic: on a busy machine a reload can land between the rename and the write, and
    // serve the level without its record for a moment; the save shows in the reload after it.
    await eventually('the vim save shows', async () => {
        const { status, body } = await levelDetails('thunder-road')
        return status === 200 && body.item.title === 'Thunder Road (vim save)'
    })

    const leftovers = leftoverPaths([...tmpReports, ...vimReports])
    assert.equal(
        leftovers,
        [],
        `temp and backup files are not reported as changes: ${leftovers.join(', ')}`,
    )
    const { problems: now } = await problems()
    assert.equal(now, [], `no problems after the saves:\n${describeProblems(now)}`)
})

test('a JetBrains safe write (item.yaml___jb_tmp___ renamed over, the original kept as ___jb_old___ then removed) shows, and its temp files never count', async () => {
    const path = 'levels/city-lights/item.yaml'
    const text = await readFile(file(path), 'utf8')
    assert.ok(text.includes('en: City Lights,'))
    const { reports } = await afterReload(server, [path], async () => {
        await writeFile(
            file(`${path}___jb_tmp___`),
            text.replace('en: City Lights,', 'en: City Lights (JetBrains save),'),
        )
        await rename(file(path), file(`${path}___jb_old___`))
        await rename(file(`${path}___jb_tmp___`), file(path))
        await rm(file(`${path}___jb_old___`))
    })
    assert.is(await levelTitle('city-lights'), 'City Lights (JetBrains save)')
    const leftovers = leftoverPaths(reports)
    assert.equal(
        leftovers,
        [],
        `JetBrains temp files are not reported as changes: ${leftovers.join(', ')}`,
    )
})

test('saving a record again right after its reload shows the second save too', async () => {
    // An editor's save followed at once by a formatter's, or a script that writes a file twice:
    // the second write comes a few milliseconds after the first one was served, and must be
    // served as well. Nothing is fetched in between, so the second save follows the first reload
    // as closely as it can.
    const path = 'levels/morning-dew/item.md'
    const text = await readFile(file(path), 'utf8')
    assert.ok(text.includes('en: Morning Dew,'))
    const save = (label: string) => () =>
        writeFile(file(path), text.replace('en: Morning Dew,', `en: Morning Dew (${label}),`))
    const firstWrite = performance.now()
    await afterReload(server, [path], save('save 1'), { what: 'save 1' })
    const what = `save 2, written as soon as save 1 was served (${Math.round(performance.now() - firstWrite)} ms after save 1 was written)`
    await afterReload(server, [path], save('save 2'), { deadline: 2_000, what }).catch(
        async (error: Error) => {
            throw new Error(
                `the second save was never served: details still say "${await levelTitle('morning-dew')}" (${error.message})`,
            )
        },
    )
    assert.is(await levelTitle('morning-dew'), 'Morning Dew (save 2)')
})

const freshLevel = 'fresh-level'
test('a new level folder (resources first, record last) is served and listed', async () => {
    const record = `levels/${freshLevel}/item.yaml`
    assert.is((await levelDetails(freshLevel)).status, 404, 'not there before')
    await afterReload(server, [record], async () => {
        await writeTree(content, {
            [`levels/${freshLevel}/cover.png`]: tinyPng(1, 2, 3),
            [`levels/${freshLevel}/bgm.mp3`]: tinyMp3(7),
            [`levels/${freshLevel}/data.json`]: JSON.stringify({ bgmOffset: 0, entities: [] }),
        })
        await writeFile(file(record), 'title: Fresh Level\nrating: 7\ntime: 2027-01-01T00:00:00Z\n')
    })
    const { status, body } = await levelDetails(freshLevel)
    assert.is(status, 200, 'the new level is served')
    assert.is(body.item.title, 'Fresh Level')
    assert.is(body.item.engine.name, 'shelf-tap', 'the engine comes from levels/_defaults.yaml')
    assert.is(body.item.cover.hash, sha1(tinyPng(1, 2, 3)))
    const listed = await listedLevels()
    assert.is(
        listed[0]?.name,
        freshLevel,
        `the newest level heads the list: ${listed.map((item) => item.name).join(', ')}`,
    )
    const { problems: now } = await problems()
    assert.equal(
        now,
        [],
        `no problems left from the half-written folder:\n${describeProblems(now)}`,
    )
})

test('renaming a level folder serves it under the new name only', async () => {
    assert.is((await levelDetails('secret-garden')).status, 200)
    await afterReload(server, ['levels/secret-garden', 'levels/hidden-garden'], () =>
        rename(file('levels/secret-garden'), file('levels/hidden-garden')),
    )
    assert.is((await levelDetails('secret-garden')).status, 404, 'the old name is gone')
    const { status, body } = await levelDetails('hidden-garden')
    assert.is(status, 200, 'the new name serves')
    assert.is(body.item.title, 'Secret Garden')
})

test('deleting a level folder removes it, and leaves out the playlist and replay that used it, naming it', async () => {
    assert.is((await get('/playlists/after-dark')).status, 200)
    assert.is((await get('/replays/bob-night-drive')).status, 200)
    await afterReload(server, ['levels/night-drive'], () =>
        rm(file('levels/night-drive'), { recursive: true }),
    )

    assert.is((await levelDetails('night-drive')).status, 404, 'the level is gone')
    assert.not.ok(
        (await listedLevels()).some((item) => item.name === 'night-drive'),
        'and out of the list',
    )
    assert.is((await get('/playlists/after-dark')).status, 404, 'a playlist naming it is left out')
    assert.is((await get('/playlists/starter-pack')).status, 404, 'so is the other one')
    assert.is((await get('/replays/bob-night-drive')).status, 404, 'a replay of it is left out')

    const { errors, problems: now } = await problems()
    assert.ok(errors >= 3, `three errors or more, got ${errors}:\n${describeProblems(now)}`)
    for (const referrer of [
        'playlists/after-dark/item.md',
        'playlists/starter-pack/item.yaml',
        'replays/bob-night-drive/item.md',
    ]) {
        const problem = now.find((entry) => entry.file === referrer)
        assert.ok(problem, `a problem about ${referrer}:\n${describeProblems(now)}`)
        assert.match(
            problem!.message,
            /night-drive/,
            `the problem names the missing level: ${problem!.message}`,
        )
        assert.is(problem!.severity, 'error')
        assert.type(problem!.line, 'number', `${referrer}: the problem has a line`)
    }
})

test('editing a comment and adding one shows in the comment list (E18)', async () => {
    const edited = 'levels/first-steps/comments/2026-05-09-niaj.md'
    const added = 'levels/first-steps/comments/2026-06-01-zoe.md'
    const text = await readFile(file(edited), 'utf8')
    await afterReload(server, [edited, added], async () => {
        await writeFile(
            file(edited),
            text.replace(
                'Still my favourite way to start a session.',
                'Edited: still my favourite.',
            ),
        )
        await writeFile(
            file(added),
            '---\nauthor: Zoe\ntime: 2026-06-01T09:00:00Z\n---\nA brand new comment.\n',
        )
    })
    const { status, body } = await get<ServerItemCommunityCommentList>(
        '/levels/first-steps/community/comments/list',
    )
    assert.is(status, 200)
    const [newest, second] = body.comments
    assert.is(newest?.name, '2026-06-01-zoe', 'the new comment is the newest')
    assert.is(newest?.author, 'Zoe')
    assert.match(newest?.content ?? '', /A brand new comment\./)
    assert.is(second?.name, '2026-05-09-niaj')
    assert.match(second?.content ?? '', /^Edited: still my favourite\./)
})

test('a comment saved into a comments folder just made in a level that had none shows in its comment list', async () => {
    const added = 'levels/city-lights/comments/2026-06-02-ada.md'
    await afterReload(server, [added], async () => {
        await mkdir(file('levels/city-lights/comments'), { recursive: true })
        await writeFile(
            file(added),
            '---\nauthor: Ada\ntime: 2026-06-02T09:00:00Z\n---\nFirst comment here.\n',
        )
    })
    const { status, body } = await get<ServerItemCommunityCommentList>(
        '/levels/city-lights/community/comments/list',
    )
    assert.is(status, 200)
    assert.equal(
        body.comments.map((comment) => comment.name),
        ['2026-06-02-ada'],
    )
    assert.match(body.comments[0]?.content ?? '', /First comment here\./)
})

test('editing a leaderboard shows in its details (E22)', async () => {
    const path = 'levels/first-steps/leaderboards/top.yaml'
    const text = await readFile(file(path), 'utf8')
    await afterReload(server, [path], () =>
        writeFile(
            file(path),
            text.replace(
                '  - player: Alice\n    value: "1,000,000"',
                '  - player: Alicia\n    value: "1,234,567"',
            ),
        ),
    )
    const { status, body } = await get<ServerItemLeaderboardDetails>(
        '/levels/first-steps/leaderboards/top',
    )
    assert.is(status, 200)
    assert.is(body.topRecords[0]?.player, 'Alicia')
    assert.is(body.topRecords[0]?.value, '1,234,567')
    assert.is(body.topRecords[1]?.player, 'Dave', 'the rest is unchanged')
})

test('editing server.yaml shows in the server info (E1)', async () => {
    const text = await readFile(file('server.yaml'), 'utf8')
    assert.ok(text.includes('  en: Shelf example\n'))
    await afterReload(server, ['server.yaml'], () =>
        writeFile(file('server.yaml'), text.replace('  en: Shelf example\n', '  en: Shelf live\n')),
    )
    const { status, body } = await get<ServerInfo>('/info')
    assert.is(status, 200)
    assert.is(body.title, 'Shelf live')
})

test('editing levels/_defaults.yaml applies to every level without the field of its own', async () => {
    assert.is((await levelDetails(freshLevel)).body.item.author, '', 'no author before')
    const text = await readFile(file('levels/_defaults.yaml'), 'utf8')
    await afterReload(server, ['levels/_defaults.yaml'], () =>
        writeFile(file('levels/_defaults.yaml'), `${text}author: Default Author\n`),
    )
    assert.is(
        (await levelDetails(freshLevel)).body.item.author,
        'Default Author',
        'a level without an author takes the default',
    )
    assert.is(
        (await levelDetails('thunder-road')).body.item.author,
        'Alice',
        "a level's own author wins",
    )
})

test('a changed resource gets the hash of its new bytes at once, and serves them', async () => {
    const path = 'levels/morning-dew/cover.png'
    const before = (await levelDetails('morning-dew')).body.item.cover
    const bytes = tinyPng(200, 100, 50)
    assert.is.not(before.hash, sha1(bytes))
    await afterReload(server, [path], () => writeFile(file(path), bytes))
    // writeFile empties the file before writing it: the watcher may see both, one reload each.
    await eventually(
        'the Srl hash is the SHA-1 of the new bytes',
        async () => (await levelDetails('morning-dew')).body.item.cover.hash === sha1(bytes),
    )

    const { cover } = (await levelDetails('morning-dew')).body.item
    assert.ok(
        cover.url?.endsWith(`/repository/${cover.hash}`),
        `the url names the new hash: ${cover.url}`,
    )
    const served = await getBytes(`${server.root}/repository/${cover.hash}`)
    assert.is(served.status, 200)
    assert.ok(served.bytes.equals(bytes), 'the new url serves the new bytes')
})

test('breaking a record keeps its last good version serving and reports the problem; fixing it clears the problem', async () => {
    const path = 'levels/city-lights/item.yaml'
    const text = await readFile(file(path), 'utf8')
    const goodTitle = await levelTitle('city-lights')
    const mistake = 'rating: 24 points: many'
    const broken = text.replace('rating: 24\n', `${mistake}\n`)
    const line = broken.split('\n').indexOf(mistake) + 1

    const { report } = await afterReload(server, [path], () => writeFile(file(path), broken), {
        what: 'the breaking edit',
    })
    const { status, body } = await levelDetails('city-lights')
    assert.is(status, 200, 'the last good version keeps serving')
    assert.is(body.item.title, goodTitle)
    assert.ok(
        (await listedLevels()).some((item) => item.name === 'city-lights'),
        'and it stays listed',
    )

    const { errors, problems: now } = await problems()
    const problem = now.find((entry) => entry.file === path)
    assert.ok(problem, `a problem about ${path}:\n${describeProblems(now)}`)
    assert.ok(errors >= 1)
    assert.is(problem!.severity, 'error')
    assert.is(problem!.line, line, `the line of the mistake: ${JSON.stringify(problem)}`)
    assert.match(problem!.message, /last good version keeps serving/)
    assert.ok(
        report.problems.some((entry) => entry.file === path),
        'the reload report carries the problem too',
    )

    await afterReload(
        server,
        [path],
        () =>
            writeFile(
                file(path),
                text.replace(/title: \{ en: [^,]*,/, 'title: { en: City Lights (fixed),'),
            ),
        {
            what: 'the fix',
        },
    )
    assert.is(await levelTitle('city-lights'), 'City Lights (fixed)', 'the fixed version serves')
    const { problems: after } = await problems()
    assert.not.ok(
        after.some((entry) => entry.file === path),
        `the problem is gone:\n${describeProblems(after)}`,
    )
})

test('a burst of 300 files (60 new level folders) is coalesced into a few reloads, and every level shows', async () => {
    const count = 60
    const names = Array.from(
        { length: count },
        (_, index) => `burst-${String(index).padStart(2, '0')}`,
    )
    const folder = (name: string): FileTree => ({
        [`levels/${name}/item.yaml`]: `title: Burst ${name}\nrating: 12\ntime: 2026-07-01T00:00:00Z\n`,
        [`levels/${name}/cover.png`]: tinyPng(90, names.indexOf(name), 0),
        [`levels/${name}/bgm.mp3`]: tinyMp3(names.indexOf(name)),
        [`levels/${name}/preview.mp3`]: tinyMp3(100 + names.indexOf(name)),
        [`levels/${name}/data.json`]: JSON.stringify({ bgmOffset: 0, entities: [] }),
    })
    const started = performance.now()
    const { reports } = await afterReload(
        server,
        names.map((name) => `levels/${name}/item.yaml`),
        () =>
            Promise.all(
                names.map(async (name) => {
                    await mkdir(file(`levels/${name}`))
                    await Promise.all(
                        Object.entries(folder(name)).map(([path, bytes]) =>
                            writeFile(file(path), bytes),
                        ),
                    )
                }),
            ),
        { deadline: 20_000, what: 'the burst' },
    )
    const ms = Math.round(performance.now() - started)
    assert.ok(
        reports.length <= 5,
        `300 files coalesced into ${reports.length} reload(s) (at most 5 expected) in ${ms} ms`,
    )

    const listed = new Set((await listedLevels()).map((item) => item.name))
    const missing = names.filter((name) => !listed.has(name))
    assert.equal(missing, [], `every new level is listed; missing: ${missing.join(', ')}`)
    const details = await Promise.all(names.map((name) => levelDetails(name)))
    assert.ok(
        details.every((response) => response.status === 200),
        'every new level is served',
    )
    const { problems: now } = await problems()
    const burstProblems = now.filter((problem) => problem.file.startsWith('levels/burst-'))
    assert.equal(
        burstProblems,
        [],
        `no problems about the new levels:\n${describeProblems(burstProblems)}`,
    )
})

// The watching starts only in the turn after the start resolves (after the listening line): a
// save meanwhile is found by the first scan, as a change since the folder was read.
test('a record saved as the start resolves, before any folder is watched, shows once watching', async () => {
    const folder = await copyContent()
    const shelf = await startShelf(
        {
            content: folder,
            name: 'service',
            drafts: false,
            cache: await temporaryFolder('shelf-cache-'),
            watch: true,
        },
        { port: 0, host: '127.0.0.1' },
    )
    try {
        const record = join(folder, 'levels/morning-dew/item.md')
        const text = await readFile(record, 'utf8')
        await writeFile(`${record}.saving`, text.replace(/^title: .*$/m, 'title: Saved Meanwhile'))
        await rename(`${record}.saving`, record)
        await shelf.watching
        await eventually('the save is served', async () => {
            const { body } = await getJson<ServerItemDetails<LevelItem>>(
                `${shelf.url}/service/levels/morning-dew`,
            )
            return body.item.title === 'Saved Meanwhile'
        })
    } finally {
        await shelf.close()
        await rm(folder, { recursive: true, force: true })
    }
})

test('no editor leftover ever showed up in a reload report or a problem', async () => {
    assert.ok(allReports.length > 0)
    const leftovers = leftoverPaths(allReports, isLeftover)
    assert.equal(leftovers, [], `leftovers in reports: ${leftovers.join(', ')}`)
    const { problems: now } = await problems()
    const about = now.filter((problem) => problem.file.split('/').some(isLeftover))
    assert.equal(about, [], `problems about leftovers:\n${describeProblems(about)}`)
})

test.run()
