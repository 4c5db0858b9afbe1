/**
 * Charts as content, end to end over HTTP with the real engine packages from npm: engines that
 * name a package; a level's `.sus`, `.usc` and Bestdori chart converted by its engine's package
 * and served as LevelData (checked against @sonolus/core's type); an edit served after its
 * reload; a broken chart keeping its last good data; hostile charts refused without harm; charts
 * uploaded by a player; and the example content crawled with its real engine.
 */
import { readFileSync } from 'node:fs'
import { readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import type { Problem } from '../src/content/problems.js'
import type { ReloadReport } from '../src/server.js'
import { bestdoriChart, susChart, uscChart } from './support/chart-files.js'
import { servedLevelData } from './support/charts.js'
import {
    getBytes,
    levelResources,
    sha1,
    supportingItems,
    tinyMp3,
    tinyPng,
    writeTree,
} from './support/fixtures.js'
import { crawlGuest } from './support/guest-crawl.js'
import { signInPlayer, type Player } from './support/player.js'
import { assertShape } from './support/response-shapes.js'
import { getJson, startTestServer, temporaryFolder, type TestServer } from './support/server.js'
import { createTestSigner } from './support/signing.js'

const test = suite('charts')
const require = createRequire(import.meta.url)
let content: string
let cache: string
let server: TestServer
let alice: Player

/** A level folder without its data: the chart is added by each test. */
const level = (name: string, engine: string) => {
    const { [`levels/${name}/data.json`]: _, ...files } = levelResources(name)
    return {
        ...files,
        [`levels/${name}/item.yaml`]: `title: ${name}\nrating: 1\nengine: ${engine}\n`,
    }
}

const ownThumbnail = tinyPng(9, 9, 9)
const engineUses = 'skin: s1\nbackground: b1\neffect: fx1\nparticle: p1\n'

const serverYaml = `title: Charts
limits:
  comments: &generous { perPlayer: 1000, perAddress: 1000, perSeconds: 60 }
  creates: *generous
  results: *generous
levels:
  creates:
    - type: level
      title: Upload a chart
      options:
        - { query: title, type: text, name: "#TITLE", required: true }
        - { query: rating, type: slider, name: "#RATING", def: 10, min: 1, max: 50, step: 1 }
        - { query: engine, type: select, name: "#ENGINE", def: sekai, values: [{ name: sekai, title: Sekai }, { name: bandori, title: Bandori }] }
        - { query: cover, type: file, name: "#LEVEL_COVER", required: true, validation: { type: levelCover } }
        - { query: bgm, type: file, name: "#LEVEL_BGM", required: true, validation: { type: levelBgm } }
        - { query: data, type: file, name: "#LEVEL_DATA", required: true, validation: { type: file }, charts: [usc, sus, bestdori] }
  actions:
    - type: edit
      title: "#EDIT"
      options:
        - { query: data, type: file, name: "#LEVEL_DATA", validation: { type: file }, charts: [usc, sus] }
    - type: edit
      title: Two mistakes
      options:
        - { query: cover, type: file, name: "#LEVEL_COVER", charts: [sus] }
        - { query: data, type: file, name: "#LEVEL_DATA", validation: { type: levelData }, charts: [sus] }
`

test.before(async () => {
    content = await temporaryFolder('shelf-charts-')
    await writeTree(content, {
        ...supportingItems(),
        'server.yaml': serverYaml,
        'engines/sekai/item.yaml': `package: sonolus-pjsekai-engine\n${engineUses}`,
        'engines/bandori/item.yaml': `package: sonolus-bandori-engine\ntitle: Our Bandori\n${engineUses}`,
        'engines/bandori/thumbnail.png': ownThumbnail,
        'engines/not-installed/item.yaml': `package: sonolus-not-installed-engine\n${engineUses}`,
        ...level('sus-level', 'sekai'),
        'levels/sus-level/data.sus': susChart(6),
        ...level('usc-level', 'sekai'),
        'levels/usc-level/data.usc': uscChart(5),
        ...level('bestdori-level', 'bandori'),
        'levels/bestdori-level/data.bestdori.json': bestdoriChart(7),
        ...level('plain-engine', 'eng1'),
        'levels/plain-engine/data.sus': susChart(2),
        ...level('wrong-engine', 'bandori'),
        'levels/wrong-engine/data.sus': susChart(2),
    })
    cache = await temporaryFolder('shelf-charts-state-')
    const signer = await createTestSigner()
    server = await startTestServer({
        content,
        cache,
        watch: true,
        signIn: { signatureKey: signer.publicKeyFile },
        chartLimits: { memoryMb: 64, sourceBytes: 1_000_000, entities: 5_000 },
    })
    alice = await signInPlayer(server, signer, 'alice-id', 'Alice')
})

test.after(async () => {
    await server?.stop()
    await rm(content, { recursive: true, force: true })
    await rm(cache, { recursive: true, force: true })
})

const problems = () => server.catalog().problems
const problemAt = (file: string) => problems().find((problem) => problem.file === file)

/** Runs `change` and waits for the reload that covers `path` (the listener is there before the change). */
const afterReload = async (path: string, change: () => Promise<unknown>) => {
    let listener: ((report: ReloadReport) => void) | undefined
    const reloaded = new Promise<ReloadReport>((resolve, reject) => {
        const timer = setTimeout(
            () => reject(new Error(`no reload of ${path} within 60 s`)),
            60_000,
        )
        listener = (report) => {
            if (!report.paths.includes(path)) return
            clearTimeout(timer)
            resolve(report)
        }
        server.events.on('reload', listener)
    })
    try {
        await change()
        return await reloaded
    } finally {
        server.events.off('reload', listener!)
    }
}

const packageFile = (name: string, entry: string) =>
    readFileSync(require.resolve(`${name}/${entry}`))
/** The installed version, from the package.json beside its main module (`dist/index.*`). */
const packageVersion = (name: string) =>
    (
        JSON.parse(
            readFileSync(join(dirname(require.resolve(name)), '..', 'package.json'), 'utf8'),
        ) as { version: string }
    ).version

test('an engine naming a package serves the package files and texts; its fields win', async () => {
    const sekai = await getJson<{ item: Record<string, unknown> }>(`${server.root}/engines/sekai`)
    assert.is(sekai.status, 200, JSON.stringify(problems()))
    assertShape('EngineDetails', sekai.body)
    const { databaseEngineItem } = require('sonolus-pjsekai-engine') as {
        databaseEngineItem: { title: { en: string }; subtitle: { en: string } }
    }
    assert.is(sekai.body.item.title, databaseEngineItem.title.en)
    assert.is(sekai.body.item.subtitle, databaseEngineItem.subtitle.en)
    for (const [role, entry] of [
        ['playData', 'EnginePlayData'],
        ['configuration', 'EngineConfiguration'],
        ['thumbnail', 'EngineThumbnail'],
    ] as const) {
        const srl = sekai.body.item[role] as { hash: string; url: string }
        const served = await getBytes(`${server.url}${srl.url}`)
        assert.is(served.status, 200)
        assert.equal(
            served.bytes,
            packageFile('sonolus-pjsekai-engine', entry),
            `${role} is the package's file`,
        )
        assert.is(srl.hash, sha1(served.bytes))
    }
    const bandori = await getJson<{
        item: {
            title: string
            subtitle: string
            thumbnail: { hash: string }
            playData: { hash: string }
        }
    }>(`${server.root}/engines/bandori`)
    assert.is(bandori.body.item.title, 'Our Bandori', "the record's title wins")
    assert.match(bandori.body.item.subtitle, /BanG Dream/, "the package's subtitle fills in")
    assert.is(bandori.body.item.thumbnail.hash, sha1(ownThumbnail), "the folder's own file wins")
    assert.is(
        bandori.body.item.playData.hash,
        sha1(packageFile('sonolus-bandori-engine', 'EnginePlayData')),
    )
})

test("the engine's page names its package and version", async () => {
    const page = await fetch(`${server.url}/engines/sekai`)
    assert.is(page.status, 200)
    assert.match(
        await page.text(),
        `sonolus-pjsekai-engine, version ${packageVersion('sonolus-pjsekai-engine')}`,
    )
})

test('a package that is not installed is a problem naming the npm install to run', async () => {
    const problem = problemAt('engines/not-installed/item.yaml')
    assert.ok(problem, JSON.stringify(problems()))
    assert.is(problem.field, 'package')
    assert.is(problem.line, 1)
    assert.match(problem.message, 'npm install sonolus-not-installed-engine')
    assert.is((await fetch(`${server.root}/engines/not-installed`)).status, 404)
})

test("server.yaml: charts are for a level's data option, which the app must not check as LevelData", () => {
    const warnings = problems().filter((problem) => problem.file === 'server.yaml')
    assert.equal(
        warnings.map(({ field, severity }) => [field, severity]),
        [
            ['levels.actions[1].options[0].charts', 'warning'],
            ['levels.actions[1].options[1].validation.type', 'warning'],
        ],
    )
    assert.match(warnings[0]!.message, 'only a level\'s "data" option takes charts')
    assert.match(warnings[1]!.message, 'give this option validation: { type: file }')
})

test('a .sus, a .usc and a Bestdori chart are served as LevelData with every note', async () => {
    assert.is((await servedLevelData(server.root, 'sus-level')).notes, 6)
    assert.is((await servedLevelData(server.root, 'usc-level')).notes, 5)
    const bestdori = await servedLevelData(server.root, 'bestdori-level')
    assert.is(bestdori.notes, 7)
    assert.ok(
        bestdori.data.entities.some((entity) => entity.archetype === 'TapNote'),
        "the bandori package's own archetypes",
    )
})

test("a chart that the level's engine does not convert is a problem at the chart", async () => {
    assert.match(problemAt('levels/plain-engine/data.sus')!.message, 'names no engine package')
    assert.match(
        problemAt('levels/wrong-engine/data.sus')!.message,
        /sonolus-bandori-engine, the package of engine "bandori", converts no SUS chart: it converts data.bestdori.json/,
    )
    assert.is((await fetch(`${server.root}/levels/wrong-engine`)).status, 404)
})

test("an engine that gains a package converts its levels' charts in the same reload", async () => {
    assert.is((await fetch(`${server.root}/levels/plain-engine`)).status, 404)
    const report = await afterReload('engines/eng1/item.yaml', () =>
        writeFile(
            join(content, 'engines/eng1/item.yaml'),
            `title: Engine eng1\npackage: sonolus-pjsekai-engine\n${engineUses}`,
        ),
    )
    assert.not.ok(report.problems.some((problem) => problem.file.startsWith('levels/plain-engine')))
    assert.is((await servedLevelData(server.root, 'plain-engine')).notes, 2)
})

test('an edited chart is served after its reload', async () => {
    const before = await servedLevelData(server.root, 'sus-level')
    const report = await afterReload('levels/sus-level/data.sus', () =>
        writeFile(join(content, 'levels/sus-level/data.sus'), susChart(9)),
    )
    assert.not.ok(report.problems.some((problem) => problem.file.startsWith('levels/sus-level')))
    const after = await servedLevelData(server.root, 'sus-level')
    assert.is(after.notes, 9)
    assert.is.not(after.hash, before.hash)
})

test('a broken chart keeps its last good data serving, with the problem at its line', async () => {
    const good = await servedLevelData(server.root, 'usc-level')
    const broken = uscChart(5).replace('"offset": 0,', '"offset": 0,,')
    await afterReload('levels/usc-level/data.usc', () =>
        writeFile(join(content, 'levels/usc-level/data.usc'), broken),
    )
    const problem = problemAt('levels/usc-level/data.usc')
    assert.ok(problem, JSON.stringify(problems()))
    assert.is(problem.line, 3)
    assert.match(
        problem.message,
        /USC chart not converted: invalid JSON.*the last good version keeps serving/,
    )
    assert.is((await servedLevelData(server.root, 'usc-level')).hash, good.hash)
    await afterReload('levels/usc-level/data.usc', () =>
        writeFile(join(content, 'levels/usc-level/data.usc'), uscChart(4)),
    )
    assert.is(problemAt('levels/usc-level/data.usc'), undefined)
    assert.is((await servedLevelData(server.root, 'usc-level')).notes, 4)
})

/** Saves a chart into a new level using the sekai engine and answers the problem it got. */
const hostile = async (name: string, file: string, chart: string | Buffer) => {
    await writeTree(content, level(name, 'sekai'))
    await afterReload(`levels/${name}/${file}`, () =>
        writeFile(join(content, `levels/${name}/${file}`), chart),
    )
    assert.is((await fetch(`${server.root}/levels/${name}`)).status, 404, `${name} is not served`)
    return (
        problemAt(`levels/${name}/${file}`) ?? ({ message: JSON.stringify(problems()) } as Problem)
    )
}

test('hostile charts are refused with a message, and the server carries on', async () => {
    // An absurd bar length: the converter makes beats of Infinity, which the LevelData check refuses.
    const absurd = await hostile(
        'absurd',
        'data.sus',
        susChart(3).replace('#00002: 4', '#00002: 1e308'),
    )
    assert.match(absurd.message, /made no valid LevelData/)
    const malformed = await hostile(
        'malformed',
        'data.sus',
        '#REQUEST "ticks_per_beat 480"\n#0011z: 1z\n#zzz: 14\n',
    )
    assert.match(
        malformed.message,
        /SUS chart not converted: sonolus-pjsekai-engine could not convert it/,
    )
    const notText = await hostile('not-text', 'data.sus', Buffer.from([0x23, 0xff, 0xfe, 0x00]))
    assert.match(notText.message, /not UTF-8/)
    // Megabytes of notes: refused unread past the size limit, or stopped by the worker's bounds.
    const huge = await hostile(
        'huge',
        'data.sus',
        susChart(3) + '#00112: ' + '12'.repeat(600_000) + '\n',
    )
    assert.match(huge.message, /more than the 1000000 a chart may be: refused/)
    const many = await hostile(
        'many',
        'data.sus',
        susChart(3) + '#00112: ' + '12'.repeat(450_000) + '\n',
    )
    assert.match(
        many.message,
        /(needed more than 64 MB|took longer than \d+ s|entities, more than the 5000 a level may have): refused/,
    )
    const crowded = await hostile('crowded', 'data.sus', susChart(5_100))
    assert.match(
        crowded.message,
        /the chart makes 5103 entities, more than the 5000 a level may have: refused/,
    )
    // The server answers, and the next chart gets a fresh worker.
    assert.is((await fetch(`${server.root}/info`)).status, 200)
    await afterReload('levels/sus-level/data.sus', () =>
        writeFile(join(content, 'levels/sus-level/data.sus'), susChart(4)),
    )
    assert.is((await servedLevelData(server.root, 'sus-level')).notes, 4)
})

/** Asks to create a level through the upload form and uploads its files; answers the upload's answer. */
const uploadLevel = async (engine: string, chart: Buffer) => {
    const cover = tinyPng(1, 2, 3)
    const bgm = tinyMp3(7)
    const submit = await alice.submit('/levels/create', {
        type: 'level',
        title: `Uploaded for ${engine}`,
        engine,
        cover: sha1(cover),
        bgm: sha1(bgm),
        data: sha1(chart),
    })
    assert.is(submit.status, 200, submit.body.message)
    return alice.upload('/levels/upload', submit.body.key, [chart, bgm, cover])
}

/** Creates a level through the upload form; answers its name. */
const createLevel = async (engine: string, chart: Buffer) => {
    const upload = await uploadLevel(engine, chart)
    assert.is(upload.status, 200, upload.body.message)
    return String(upload.body.shouldNavigateToItem)
}

/** Edits a level's data through the edit form; answers the upload's answer. */
const editData = async (name: string, chart: Buffer) => {
    const submit = await alice.submit(`/levels/${name}/submit`, { type: 'edit', data: sha1(chart) })
    assert.is(submit.status, 200, submit.body.message)
    return alice.upload(`/levels/${name}/upload`, submit.body.key, [chart])
}

const chartFiles = async (name: string) =>
    (await readdir(join(content, 'levels', name))).filter((file) => file.startsWith('data'))

test('a player uploads charts: kept as sent, converted the same way', async () => {
    const bestdori = Buffer.from(bestdoriChart(3))
    const bandoriLevel = await createLevel('bandori', bestdori)
    assert.equal(
        await readFile(join(content, 'levels', bandoriLevel, 'data.bestdori.json')),
        bestdori,
    )
    assert.is((await servedLevelData(server.root, bandoriLevel)).notes, 3)

    const usc = Buffer.from(uscChart(2))
    const sekaiLevel = await createLevel('sekai', usc)
    assert.equal(await chartFiles(sekaiLevel), ['data.usc'])
    assert.is((await servedLevelData(server.root, sekaiLevel)).notes, 2)
    // An edit gives a .sus instead: it replaces the .usc, and is served.
    const sus = Buffer.from(susChart(5))
    const edited = await editData(sekaiLevel, sus)
    assert.is(edited.status, 200, edited.body.message)
    assert.equal(await chartFiles(sekaiLevel), ['data.sus'])
    assert.equal(await readFile(join(content, 'levels', sekaiLevel, 'data.sus')), sus)
    assert.is((await servedLevelData(server.root, sekaiLevel)).notes, 5)

    // A hostile chart is refused with the converter's message, and nothing is left of the level.
    const levelsBefore = await readdir(join(content, 'levels'))
    const absurd = await uploadLevel(
        'sekai',
        Buffer.from(susChart(3).replace('#00002: 4', '#00002: 1e308')),
    )
    assert.is(absurd.status, 400)
    assert.match(String(absurd.body.message), 'made no valid LevelData')
    assert.equal(await readdir(join(content, 'levels')), levelsBefore)

    // A chart the level's engine does not convert breaks the level: the edit is undone.
    const refused = await editData(bandoriLevel, sus)
    assert.is(refused.status, 400)
    assert.match(String(refused.body.message), 'converts no SUS chart')
    assert.equal(await chartFiles(bandoriLevel), ['data.bestdori.json'])
    assert.is((await servedLevelData(server.root, bandoriLevel)).notes, 3)
})

test('a restart converts no chart that did not change', async () => {
    const before = await servedLevelData(server.root, 'bestdori-level')
    await server.stop()
    // With no time to convert anything, only charts converted before can serve.
    server = await startTestServer({ content, cache, watch: true, chartLimits: { timeoutMs: 1 } })
    assert.is((await servedLevelData(server.root, 'bestdori-level')).hash, before.hash)
    const changed = await hostile('changed-after-restart', 'data.usc', uscChart(2_000))
    assert.match(changed.message, 'took longer than 0.001 s: refused')
})

test('the example content plays with its real engine: every answer and resource of a crawl', async () => {
    const example = await startTestServer()
    try {
        const { answers, srls } = await crawlGuest(
            async (path) => {
                const response = await fetch(`${example.url}${path}`)
                return { status: response.status, body: Buffer.from(await response.arrayBuffer()) }
            },
            'service',
            'en',
        )
        // Every answer about content (the home page's other buttons lead to no list of items).
        const aboutContent =
            /^\/service\/(info|(posts|playlists|levels|skins|backgrounds|effects|particles|engines|replays)\/)/
        for (const answer of answers.filter(({ path }) => aboutContent.test(path)))
            assert.is(answer.status, 200, answer.path)
        assert.ok(answers.some(({ path }) => path.startsWith('/service/levels/first-light?')))
        for (const [url, hash] of srls) {
            const { status, bytes } = await getBytes(`${example.url}${url}`)
            assert.is(status, 200, url)
            assert.is(sha1(bytes), hash, url)
        }
        const engine = await getJson<{ item: { playData: { hash: string } } }>(
            `${example.root}/engines/pjsekai`,
        )
        assert.is(
            engine.body.item.playData.hash,
            sha1(packageFile('sonolus-pjsekai-engine', 'EnginePlayData')),
        )
        const chart = readFileSync(
            new URL('../content/levels/first-light/data.sus', import.meta.url),
            'utf8',
        )
        const taps = chart
            .split('\n')
            .filter((line) => /^#\d{3}1[0-9a-z]: /.test(line))
            .flatMap((line) => line.slice(8).match(/../g)!)
            .filter((pair) => pair !== '00').length
        const { data } = await servedLevelData(example.root, 'first-light')
        const archetypes = data.entities.map((entity) => entity.archetype)
        // Every tap of the chart is a note, and the slide is one too, from its start to its end.
        assert.is(
            archetypes.filter((name) => /^(Normal|Critical)(Tap|Flick)Note$/.test(name)).length,
            taps,
        )
        assert.ok(
            archetypes.includes('NormalSlideStartNote') &&
                archetypes.includes('NormalSlideEndNote'),
        )
    } finally {
        await example.stop()
    }
})

test.run()
