/**
 * The content format's sugar over the pack format (docs/content-format.md), on small folders
 * written by the test itself.
 */
import type {
    LevelItem,
    PostItem,
    ServerInfo,
    ServerItemDetails,
    ServerItemInfo,
    ServerItemList,
    SkinItem,
} from '@sonolus/core'
import { rm } from 'node:fs/promises'
import { join } from 'node:path'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import {
    levelResources,
    supportingItems,
    tinyPng,
    writeTree,
    type FileTree,
} from './support/fixtures.js'
import { assertShape } from './support/response-shapes.js'
import { getJson, startTestServer, temporaryFolder, type TestServer } from './support/server.js'

const address = 'https://shelf.example'
const february = Date.UTC(2026, 1, 1)
const newYear = Date.UTC(2026, 0, 1)

const serverYaml = `
title: { en: Format test, ja: 書式テスト }
fallbackLocale: en
levels:
  searches:
    - type: advanced
      title: "#ADVANCED"
      options:
        - query: genre
          type: select
          name: "#GENRE"
          def: any
          values: [{ name: any, title: "#ANY" }, { name: pop, title: Pop }, { name: rock, title: Rock }]
          filter: meta.genre
          ignore: any
  sections:
    - title: Everything
      search: type=advanced
      limit: 20
`

/** A level folder: its record file (`item.yaml`, `item.json` or `item.md`) and its resources. */
const levelFolder = (
    name: string,
    recordFile: string,
    marker: number,
    record: string,
): FileTree => ({
    [`levels/${name}/${recordFile}`]: record,
    ...levelResources(name, marker),
})

/** One folder with every kind of record sugar (and one mistake, `twice`). */
const mainFolder = (): FileTree => ({
    'server.yaml': serverYaml,
    ...supportingItems(),
    'levels/_defaults.yaml': 'engine: eng1\nauthor: Default Author\n',
    ...levelFolder(
        'yaml-level',
        'item.yaml',
        1,
        [
            'title: YAML level',
            'rating: 1',
            'time: 2026-01-02T00:00:00Z',
            'artists: { ja: ジャパン }',
            'tags:',
            '  - pop',
            '  - title: { en: Hard, ja: 難しい }',
            '    icon: star',
            'useSkin: s1',
            'meta: { genre: pop }',
            '',
        ].join('\n'),
    ),
    ...levelFolder(
        'json-level',
        'item.json',
        2,
        JSON.stringify(
            {
                version: 1,
                title: { en: 'JSON level', ja: 'JSONレベル' },
                rating: 2,
                time: february,
                author: { en: 'Own Author', ja: '自分' },
                engine: 'eng2',
                useSkin: { useDefault: false, item: 's2' },
                useBackground: { useDefault: true },
                description: { en: 'From JSON', ja: 'JSONから' },
                meta: { genre: 'rock' },
            },
            null,
            4,
        ),
    ),
    ...levelFolder(
        'md-level',
        'item.md',
        3,
        '---\ntitle: Markdown level\nrating: 3\ntime: 2026-03-01\n---\nThe body **becomes** the description.\n',
    ),
    ...levelFolder(
        'no-time-level',
        'item.yaml',
        4,
        'title: Timeless\nrating: 4\nmeta: { genre: pop }\n',
    ),
    ...levelFolder(
        'draft-level',
        'item.yaml',
        5,
        'title: Draft level\nrating: 5\ntime: 2026-12-01T00:00:00Z\ndraft: true\nmeta: { genre: pop }\n',
    ),
    ...levelFolder(
        'unlisted-level',
        'item.yaml',
        6,
        'title: Hidden gem\nrating: 6\ntime: 2026-11-01T00:00:00Z\nunlisted: true\nmeta: { genre: pop }\n',
    ),
    ...levelFolder(
        'twice',
        'item.md',
        7,
        '---\ntitle: Twice\nrating: 1\ndescription: In the front matter\n---\nAnd in the body.\n',
    ),
    'posts/solo.md':
        '---\ntitle: Solo post\ntime: 2026-02-01T12:00:00Z\n---\nA whole post in one file.\n',
    'posts/folder-post/item.yaml': `title: Folder post\ntime: ${newYear}\n`,
    'posts/folder-post/thumbnail.png': tinyPng(90, 0, 0),
})

let folder: string
let main: TestServer
let withDrafts: TestServer
let infoOnly: TestServer
let both: TestServer

test.before(async () => {
    assertShape('ServerMessage', {}) // compile the response schemas before any request
    folder = await temporaryFolder('shelf-format-')
    await writeTree(join(folder, 'main'), mainFolder())
    await writeTree(join(folder, 'info-only'), {
        'info.json': JSON.stringify(
            {
                title: { en: 'Pack server', ja: 'パックサーバー' },
                description: { en: 'From info.json' },
            },
            null,
            4,
        ),
    })
    await writeTree(join(folder, 'both'), {
        'server.yaml': 'title: From server.yaml\n',
        'info.json': JSON.stringify({ title: 'From info.json' }),
    })
    main = await startTestServer({ content: join(folder, 'main'), address })
    withDrafts = await startTestServer({ content: join(folder, 'main'), address, drafts: true })
    infoOnly = await startTestServer({ content: join(folder, 'info-only'), address })
    both = await startTestServer({ content: join(folder, 'both'), address })
})

test.after(async () => {
    await Promise.allSettled([main, withDrafts, infoOnly, both].map((server) => server?.stop()))
    if (folder) await rm(folder, { recursive: true, force: true })
})

const level = async (name: string, locale = 'en', server = main) => {
    const { status, body } = await getJson<ServerItemDetails<LevelItem>>(
        `${server.root}/levels/${name}?localization=${locale}`,
    )
    assert.is(status, 200, `GET levels/${name}`)
    assertShape('LevelDetails', body)
    return body
}

const listNames = async (query: string, server = main, type = 'levels') => {
    const { status, body } = await getJson<ServerItemList<{ name: string }>>(
        `${server.root}/${type}/list?${query}`,
    )
    assert.is(status, 200, `list ${query}`)
    return body.items.map((item) => item.name)
}

const problemsOf = (server: TestServer) => server.catalog().problems

test('item.yaml, item.json and item.md records load without a problem, sorted newest first', async () => {
    assert.equal(
        problemsOf(main).filter((problem) => problem.file !== 'levels/twice/item.md'),
        [],
    )
    // md-level: 2026-03-01 (a date), json-level: February in ms, yaml-level: an ISO date-time, then no time at all.
    assert.equal(await listNames(''), ['md-level', 'json-level', 'yaml-level', 'no-time-level'])
    for (const name of ['yaml-level', 'json-level', 'md-level']) await level(name)
})

test('the Markdown body of item.md becomes the description', async () => {
    assert.is((await level('md-level')).description, 'The body **becomes** the description.')
    assert.is((await level('json-level')).description, 'From JSON')
    assert.is((await level('yaml-level')).description, undefined)
})

test('a description given in the front matter and as the body is a problem on its line', async () => {
    const problem = problemsOf(main).find((entry) => entry.file === 'levels/twice/item.md')
    assert.ok(problem, 'a problem about levels/twice/item.md')
    assert.is(problem.field, 'description')
    assert.is(problem.severity, 'error')
    assert.match(problem.message, /twice|both/)
    assert.is(problem.line, 4, 'the line of `description:` in the file')
    const { status } = await getJson(`${main.root}/levels/twice`)
    assert.is(status, 404)
})

test('a single-file post posts/<name>.md: front matter for the fields, body for the description', async () => {
    const { status, body } = await getJson<ServerItemDetails<PostItem>>(`${main.root}/posts/solo`)
    assert.is(status, 200)
    assertShape('PostDetails', body)
    assert.is(body.item.name, 'solo')
    assert.is(body.item.title, 'Solo post')
    assert.is(body.item.time, Date.parse('2026-02-01T12:00:00Z'))
    assert.is(body.description, 'A whole post in one file.')
    assert.is(body.item.thumbnail, undefined, 'a single-file post has no thumbnail')
    const folderPost = await getJson<ServerItemDetails<PostItem>>(`${main.root}/posts/folder-post`)
    assert.is(folderPost.body.item.time, newYear, 'time in milliseconds')
    assert.ok(folderPost.body.item.thumbnail?.hash, 'a folder post has its thumbnail')
    assert.equal(await listNames('', main, 'posts'), ['solo', 'folder-post'], 'newest first')
})

test("_defaults.yaml supplies engine and author; the record's own fields win", async () => {
    const yaml = (await level('yaml-level')).item
    assert.is(yaml.author, 'Default Author')
    assert.is(yaml.engine.name, 'eng1')
    assert.is((await level('md-level')).item.engine.name, 'eng1')
    const json = (await level('json-level')).item
    assert.is(json.author, 'Own Author')
    assert.is(json.engine.name, 'eng2')
})

test("localized texts follow the app's language, then fallbackLocale, then the first entry; plain strings never change", async () => {
    assert.is((await level('json-level', 'en')).item.title, 'JSON level')
    assert.is((await level('json-level', 'ja')).item.title, 'JSONレベル')
    assert.is((await level('json-level', 'ja')).description, 'JSONから')
    assert.is((await level('json-level', 'ja')).item.author, '自分')
    assert.is(
        (await level('json-level', 'fr')).item.title,
        'JSON level',
        'a language without an entry falls back to en',
    )
    assert.is(
        (await level('yaml-level', 'en')).item.artists,
        'ジャパン',
        'no en entry: the first entry',
    )
    assert.is((await level('yaml-level', 'ja')).item.title, 'YAML level')
    const en = await getJson<ServerInfo>(`${main.root}/info?localization=en`)
    const ja = await getJson<ServerInfo>(`${main.root}/info?localization=ja`)
    assert.is(en.body.title, 'Format test')
    assert.is(ja.body.title, '書式テスト')
})

test('tags are strings or { title, icon } maps', async () => {
    assert.equal((await level('yaml-level', 'en')).item.tags, [
        { title: 'pop' },
        { title: 'Hard', icon: 'star' },
    ])
    assert.equal((await level('yaml-level', 'ja')).item.tags, [
        { title: 'pop' },
        { title: '難しい', icon: 'star' },
    ])
    assert.equal((await level('json-level')).item.tags, [], 'no tags: an empty list')
})

test('useSkin: a bare name, the pack object, or absent (the engine default)', async () => {
    const skin = async (name: string) =>
        (await getJson<ServerItemDetails<SkinItem>>(`${main.root}/skins/${name}`)).body.item
    const yaml = (await level('yaml-level')).item
    assert.equal(yaml.useSkin, { useDefault: false, item: await skin('s1') })
    assert.equal(yaml.useBackground, { useDefault: true })
    const json = (await level('json-level')).item
    assert.equal(json.useSkin, { useDefault: false, item: await skin('s2') })
    assert.equal(json.useBackground, { useDefault: true })
    const md = (await level('md-level')).item
    for (const field of ['useSkin', 'useBackground', 'useEffect', 'useParticle'] as const)
        assert.equal(md[field], { useDefault: true }, field)
})

test('a draft is hidden unless the server runs with drafts', async () => {
    assert.is((await getJson(`${main.root}/levels/draft-level`)).status, 404)
    assert.not.ok((await listNames('')).includes('draft-level'))
    const body = await level('draft-level', 'en', withDrafts)
    assert.is(body.item.title, 'Draft level')
    assert.equal(await listNames('', withDrafts), [
        'draft-level',
        'md-level',
        'json-level',
        'yaml-level',
        'no-time-level',
    ])
})

test('an unlisted item is absent from lists, search and sections, yet its details are reachable', async () => {
    const details = await level('unlisted-level')
    assert.is(details.item.title, 'Hidden gem')
    assert.not.ok((await listNames('')).includes('unlisted-level'), 'plain list')
    assert.not.ok(
        (await listNames('type=quick&keywords=hidden+gem')).includes('unlisted-level'),
        'quick search',
    )
    assert.not.ok(
        (await listNames('type=advanced&genre=pop')).includes('unlisted-level'),
        'advanced search',
    )
    const info = await getJson<ServerItemInfo>(`${main.root}/levels/info`)
    assert.is(info.status, 200)
    assertShape('ServerItemInfo', info.body)
    assert.ok(info.body.sections.length >= 2, 'the Newest section and the declared one')
    for (const section of info.body.sections) {
        assert.not.ok(
            section.items.some((item) => item.name === 'unlisted-level'),
            `section ${section.title}`,
        )
    }
    // Same author (Default Author) and the engine's "levels using it": neither shows it.
    for (const path of ['levels/yaml-level', 'engines/eng1']) {
        const { body } = await getJson<ServerItemDetails<unknown>>(`${main.root}/${path}`)
        assert.ok(body.sections.length > 0, `${path} has sections`)
        for (const section of body.sections) {
            assert.not.ok(
                section.items.some((item) => item.name === 'unlisted-level'),
                `${path}: section ${section.title}`,
            )
        }
    }
})

test('meta fields are usable by a search filter declared in server.yaml', async () => {
    assert.equal(await listNames('type=advanced&genre=rock'), ['json-level'])
    assert.equal(await listNames('type=advanced&genre=pop'), ['yaml-level', 'no-time-level'])
    assert.equal(
        await listNames('type=advanced'),
        ['md-level', 'json-level', 'yaml-level', 'no-time-level'],
        'the ignore value filters nothing',
    )
})

test('info.json of the pack format works in place of server.yaml', async () => {
    assert.equal(problemsOf(infoOnly), [])
    const { status, body } = await getJson<ServerInfo>(`${infoOnly.root}/info?localization=ja`)
    assert.is(status, 200)
    assertShape('ServerInfo', body)
    assert.is(body.title, 'パックサーバー')
    assert.is(body.description, 'From info.json')
})

test('with both server.yaml and info.json, server.yaml wins and info.json gets a warning', async () => {
    const { body } = await getJson<ServerInfo>(`${both.root}/info`)
    assert.is(body.title, 'From server.yaml')
    const problems = problemsOf(both)
    assert.is(problems.length, 1)
    assert.is(problems[0]!.file, 'info.json')
    assert.is(problems[0]!.severity, 'warning')
    assert.match(problems[0]!.message, /server\.yaml/)
})

test.run()
