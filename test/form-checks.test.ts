/**
 * The forms through which players write, as `shelf check` judges them: item actions, community
 * and comment actions of a type Shelf knows, a comment form with its text, create and edit forms
 * whose file options match the type's resources, and results only where there is a result screen.
 * Each mistake is reported against server.yaml with its line, its field path and what is expected.
 */
import { rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import type { Problem } from '../src/content/problems.js'
import { describeRun, runShelf, type Run } from './support/run-cli.js'
import { copyContent } from './support/server.js'

/**
 * A server.yaml with one mistake per marked line (and a few forms that are right, to show they
 * pass). The comments after `#!` name the mistake; the tests find their lines by them.
 */
const brokenSettings = `title: Forms with mistakes
posts:
  actions:
    - type: edit
      title: "#EDIT"
      options:
        - { query: title, type: text, name: "#TITLE" }
        - { query: banner, type: file, name: Banner } #! post file
        - { query: subtitle, type: text, name: Subtitle } #! post subtitle
  community:
    - type: like #! community type
      title: Like
  results: #! post results
    - { type: replay, title: Share }
levels:
  creates:
    - type: level
      title: Upload
      options: #! missing level files
        - { query: title, type: text, name: "#TITLE", required: true }
        - { query: cover, type: file, name: "#LEVEL_COVER", required: true }
        - { query: music, type: file, name: Music } #! level file
    - type: full
      title: Upload everything
      options:
        - { query: cover, type: file, name: "#LEVEL_COVER", required: true }
        - { query: bgm, type: file, name: "#LEVEL_BGM", required: true }
        - { query: data, type: file, name: "#LEVEL_DATA", required: true }
        - { query: preview, type: text, name: Preview } #! role as text
        - { query: artists, type: text, name: "#ARTISTS" }
  actions:
    - type: report #! action type
      title: Report
    - type: delete
      title: "#DELETE"
  community:
    - type: comment
      title: "#COMMENT"
      options: #! comment without content
        - { query: text, type: textArea, name: "#CONTENT" }
  results:
    - { type: replay, title: Share }
replays:
  community:
    - type: comment
      title: "#COMMENT"
      options:
        - { query: content, type: toggle, name: "#CONTENT", def: false } #! content type
  commentActions:
    - type: hide #! comment action type
      title: Hide
skins:
  creates:
    - type: skin #! missing skin files
      title: New skin
rooms:
  creates:
    - type: round
      title: New room
      options:
        - { query: title, type: text, name: "#TITLE" }
  community: #! room community
    - { type: comment, title: "#COMMENT", options: [{ query: content, type: textArea, name: "#CONTENT" }] }
users:
  creates: #! user creates
    - { type: profile, title: Profile }
`

/** The 1-based line of server.yaml that carries the marker `#! name`. */
const lineOf = (marker: string) => {
    const index = brokenSettings.split('\n').findIndex((line) => line.endsWith(`#! ${marker}`))
    assert.ok(index >= 0, `marker "${marker}" is in the test's server.yaml`)
    return index + 1
}

let broken: string
let runs: { text: Run; json: Run; example: Run }
let problems: Problem[]

test.before(async () => {
    broken = await copyContent()
    await writeFile(join(broken, 'server.yaml'), brokenSettings)
    const [text, json, example] = await Promise.all([
        runShelf(['check', broken]),
        runShelf(['check', broken, '--format', 'json']),
        runShelf(['check', 'content', '--format', 'json']),
    ])
    runs = { text, json, example }
    assert.is(json.code, 1, describeRun(json))
    problems = (JSON.parse(json.stdout) as { problems: Problem[] }).problems
})

test.after(async () => {
    if (broken) await rm(broken, { recursive: true, force: true })
})

/** The one problem about this field of server.yaml; it must sit on the marked line. */
const problemAt = (field: string, marker: string): Problem => {
    const found = problems.filter(
        (problem) => problem.file === 'server.yaml' && problem.field === field,
    )
    assert.is(
        found.length,
        1,
        `one problem about server.yaml ${field}; got:\n${problems.map((problem) => JSON.stringify(problem)).join('\n')}`,
    )
    const problem = found[0]!
    assert.is(problem.line, lineOf(marker), `${field}: reported on the line of the mistake`)
    assert.type(problem.column, 'number')
    return problem
}

test('an item action of a type Shelf cannot do names the ones it can', () => {
    const problem = problemAt('levels.actions[0].type', 'action type')
    assert.match(
        problem.message,
        /^"report" is not an item action Shelf can do, so the form is left out: /,
    )
    assert.match(
        problem.message,
        /Shelf knows "delete" \(removes the item and its files\) and "edit" \(sets the fields and files its options name\)$/,
    )
})

test('a community action that is not a comment, and a comment action that is not a delete', () => {
    const community = problemAt('posts.community[0].type', 'community type')
    assert.match(
        community.message,
        /^"like" is not a community action Shelf can do, so the form is left out: Shelf knows "comment" /,
    )
    const comment = problemAt('replays.commentActions[0].type', 'comment action type')
    assert.match(
        comment.message,
        /^"hide" is not a comment action Shelf can do, so the form is left out: Shelf knows "delete" \(removes the comment\)$/,
    )
})

test('a comment form needs a "content" option, of type textArea or text', () => {
    const missing = problemAt('levels.community[0].options', 'comment without content')
    assert.match(missing.message, /needs an option with query "content", of type textArea or text/)
    assert.match(missing.message, /text of the comment/)
    const wrongType = problemAt('replays.community[0].options[0].type', 'content type')
    assert.match(
        wrongType.message,
        /^"content" is the text of the comment, so it must be a textArea or text option, not toggle$/,
    )
})

test('a create form without a file option for each resource the type needs names the missing ones', () => {
    const level = problemAt('levels.creates[0].options', 'missing level files')
    assert.match(
        level.message,
        /^no file option for "bgm" and "data": a level needs cover, bgm and data, /,
    )
    // A form with no options at all is reported at the form.
    const skin = problemAt('skins.creates[0]', 'missing skin files')
    assert.match(
        skin.message,
        /^no file option for "thumbnail", "data" and "texture": a skin needs thumbnail, data and texture, /,
    )
    // The complete form and the optional preview are not reported as missing.
    assert.not.ok(
        problems.some((problem) => problem.field === 'levels.creates[1].options'),
        'the form with every file passes',
    )
})

test('a file option that is no resource of the type would be ignored: the roles it has are named', () => {
    const create = problemAt('levels.creates[0].options[2].query', 'level file')
    assert.match(
        create.message,
        /^"music" is not a file a level has, so the file would be ignored: levels have cover, bgm, preview and data$/,
    )
    const edit = problemAt('posts.actions[0].options[1].query', 'post file')
    assert.match(
        edit.message,
        /^"banner" is not a file a post has, so the file would be ignored: posts have thumbnail$/,
    )
    const text = problemAt('levels.creates[1].options[3].type', 'role as text')
    assert.match(
        text.message,
        /^"preview" is a file of levels, which only a file option gives: the value of this text option would go into meta\.preview$/,
    )
})

test('a text field the type does not have would be written anyway, and the item would not load', () => {
    const problem = problemAt('posts.actions[0].options[2].query', 'post subtitle')
    assert.match(
        problem.message,
        /^posts have no "subtitle" field, yet Shelf writes this option into item\.yaml as one, and a post with it does not load: /,
    )
    assert.match(
        problem.message,
        /name it otherwise to keep it in meta \(subtitle is a field of playlists, skins, backgrounds, effects, particles, engines and replays\)$/,
    )
})

test('results anywhere but levels, and forms rooms and users never show', () => {
    const results = problemAt('posts.results', 'post results')
    assert.match(
        results.message,
        /^only levels have a result screen, so posts\.results is never shown/,
    )
    const rooms = problemAt('rooms.community', 'room community')
    assert.match(rooms.message, /rooms\.community is never shown/)
    const users = problemAt('users.creates', 'user creates')
    assert.match(users.message, /users\.creates is never shown/)
})

test('forms that are right are not reported: room settings take no files, levels have results', () => {
    const fine = [
        'rooms.creates',
        'levels.results',
        'levels.actions[1]',
        'posts.actions[0].options[0]',
        'levels.creates[1].options[0]',
        'levels.creates[1].options[4]',
    ]
    for (const prefix of fine) {
        const about = problems.filter((problem) => problem.field?.startsWith(prefix))
        assert.equal(about, [], `nothing about ${prefix}`)
    }
    // Exactly the marked mistakes, and nothing about the items, which are the example's.
    const markers = brokenSettings.split('\n').filter((line) => line.includes('#! ')).length
    assert.is(
        problems.length,
        markers,
        problems.map((problem) => JSON.stringify(problem)).join('\n'),
    )
    assert.ok(problems.every((problem) => problem.file === 'server.yaml'))
})

test('shelf check prints each as "server.yaml:line:column  field: message" and exits 1', () => {
    const run = runs.text
    assert.is(run.code, 1, describeRun(run))
    for (const problem of problems) {
        const where = `server.yaml:${problem.line}:${problem.column}  ${problem.field}: ${problem.message}`
        assert.ok(
            run.stdout.split('\n').some((line) => line.endsWith(where)),
            `printed: ${where}\n${run.stdout}`,
        )
    }
    assert.match(run.stdout, new RegExp(`^${problems.length} problems in `, 'm'))
})

test('the example content declares every kind of write form and passes', () => {
    const run = runs.example
    assert.is(run.code, 0, describeRun(run))
    assert.equal((JSON.parse(run.stdout) as { problems: Problem[] }).problems, [])
})

test.run()
