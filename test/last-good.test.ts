/**
 * Last good, always: an edit that breaks an item in any way, a misspelt reference included,
 * keeps the version that served before, and the problem names the reference and the closest
 * name that exists. A fixed edit serves at once.
 */
import type { LevelItem, PlaylistItem, ServerItemDetails } from '@sonolus/core'
import { once } from 'node:events'
import { cp, readFile, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import type { Problem } from '../src/content/problems.js'
import type { ReloadReport } from '../src/server.js'
import { copyContent, getJson, startTestServer, type TestServer } from './support/server.js'

const test = suite('last good')

let content: string
let server: TestServer

test.before(async () => {
    content = await copyContent()
    server = await startTestServer({ content, watch: true })
})

test.after(async () => {
    await server.stop()
    await rm(content, { recursive: true, force: true })
})

/** Resolves at the first reload after which `done` holds; listening starts at once. */
const reloadUntil = async (done: (report: ReloadReport) => boolean) => {
    for (;;) {
        const [report] = (await once(server.events, 'reload')) as [ReloadReport]
        if (done(report)) return
    }
}

/** Writes a file and resolves once a reload naming it is served; answers a way to undo it. */
const edit = async (path: string, change: (text: string) => string) => {
    const file = join(content, path)
    const before = await readFile(file, 'utf8')
    const after = change(before)
    assert.is.not(after, before, `the edit of ${path} changes it`)
    const write = async (text: string) => {
        const reloaded = reloadUntil((report) => report.paths.includes(path))
        await writeFile(file, text)
        await reloaded
    }
    await write(after)
    return () => write(before)
}

const problemsOf = (file: string): Problem[] =>
    server.catalog().problems.filter((problem) => problem.file === file)

const details = <T>(path: string) => getJson<ServerItemDetails<T>>(`${server.root}${path}`)

const assertKept = (problems: Problem[], field: string, expected: RegExp) => {
    const problem = problems.find((candidate) => candidate.field === field)
    assert.ok(problem, `a problem about ${field}: ${JSON.stringify(problems)}`)
    assert.match(problem!.message, expected)
    assert.match(problem!.message, /the last good version keeps serving/)
    assert.type(problem!.line, 'number', 'the problem names its line')
}

test('a misspelt skin keeps the level serving as it was, naming the closest skin', async () => {
    const file = 'levels/city-lights/item.yaml'
    const restore = await edit(file, (text) =>
        text
            .replace('title: { en: City Lights,', 'title: { en: City Lights Remix,')
            .replace('useEffect: retro-beeps', 'useEffect: retro-beeps\nuseSkin: neon-glwo'),
    )
    const { status, body } = await details<LevelItem>('/levels/city-lights')
    assert.is(status, 200, 'the level still serves')
    assert.is(body.item.title, 'City Lights', 'its last good version')
    assertKept(
        problemsOf(file),
        'useSkin',
        /skin "neon-glwo" does not exist .*did you mean "neon-glow"/,
    )
    const playlist = await details<PlaylistItem>('/playlists/after-dark')
    assert.is(playlist.status, 200, 'the playlist holding it still serves')
    await restore()
    assert.is(problemsOf(file).length, 0, 'fixed')
})

test('a misspelt engine keeps the last good version, naming the closest engine', async () => {
    const file = 'levels/city-lights/item.yaml'
    const restore = await edit(file, (text) =>
        text
            .replace('title: { en: City Lights,', 'title: { en: City Lights Remix,')
            .replace('useEffect: retro-beeps', 'useEffect: retro-beeps\nengine: shelf-tpa'),
    )
    const { status, body } = await details<LevelItem>('/levels/city-lights')
    assert.is(status, 200)
    assert.is(body.item.title, 'City Lights')
    assert.is(body.item.engine.name, 'shelf-tap')
    assertKept(
        problemsOf(file),
        'engine',
        /engine "shelf-tpa" does not exist .*did you mean "shelf-tap"/,
    )
    await restore()
    const fixed = await details<LevelItem>('/levels/city-lights')
    assert.is(fixed.body.item.title, 'City Lights')
    assert.is(problemsOf(file).length, 0)
})

test('a misspelt level in a playlist keeps the playlist as it was', async () => {
    const file = 'playlists/after-dark/item.md'
    const restore = await edit(file, (text) =>
        text
            .replace('title: { en: After Dark,', 'title: { en: After Dark Too,')
            .replace('city-lights, thunder-road', 'city-lihgts, thunder-road'),
    )
    const { status, body } = await details<PlaylistItem>('/playlists/after-dark')
    assert.is(status, 200)
    assert.is(body.item.title, 'After Dark')
    assert.equal(
        body.item.levels.map((level) => level.name),
        ['night-drive', 'city-lights', 'thunder-road'],
    )
    assertKept(
        problemsOf(file),
        'levels',
        /level "city-lihgts" does not exist .*did you mean "city-lights"/,
    )
    await restore()
    assert.is(problemsOf(file).length, 0)
})

test('an item whose reference breaks on its first load is left out, saying so', async () => {
    const folder = join(content, 'levels/city-lights')
    const file = 'levels/new-one/item.yaml'
    const copy = join(content, 'levels/new-one')
    const reloaded = reloadUntil(() => problemsOf(file).length > 0)
    await cp(folder, copy, { recursive: true, filter: (path) => !path.endsWith('item.yaml') })
    await writeFile(join(copy, 'item.yaml'), 'title: New\nrating: 1\nuseSkin: neon-glwo\n')
    await reloaded
    const { status } = await details<LevelItem>('/levels/new-one')
    assert.is(status, 404, 'nothing good to keep')
    const [problem] = problemsOf(file)
    assert.match(
        problem?.message ?? JSON.stringify(problemsOf(file)),
        /did you mean "neon-glow"\?\); level "new-one" is left out/,
    )
    await rm(copy, { recursive: true })
})

test.run()
