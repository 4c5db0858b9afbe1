/**
 * Content made to hurt the loader, or cut short by accident: every such file gives a problem
 * naming its file (and line, where there is one) and a message, and everything else keeps
 * serving. Huge maps and leaderboards, deep nesting, alias bombs, bytes that are not UTF-8, a
 * front matter never closed, and a server.yaml broken while watching. (How long each takes is
 * measured by bench/hostile-content.ts, never here.)
 */
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import type { Problem } from '../src/content/problems.js'
import { loadCatalog } from '../src/server.js'
import { describeRun, runShelf } from './support/run-cli.js'
import { copyContent, getJson, startTestServer, temporaryFolder } from './support/server.js'

const test = suite('hostile content')
let content: string

test.before(async () => {
    content = await copyContent()
})

test.after(async () => {
    await rm(content, { recursive: true, force: true })
})

/** Writes one post's record file, loads the folder, and answers the post (if served) and its problems. */
const loadPost = async (name: string, file: string, bytes: Buffer | string) => {
    await mkdir(join(content, 'posts', name), { recursive: true })
    await writeFile(join(content, 'posts', name, file), bytes)
    const catalog = await loadCatalog({
        content,
        name: 'service',
        drafts: false,
        cache: join(content, '.shelf'),
    })
    const problems = catalog.problems.filter((problem) => problem.file.startsWith(`posts/${name}/`))
    return { served: catalog.get('post', name), problems }
}

const assertOneError = (problems: Problem[], file: string, message: RegExp, line?: number) => {
    assert.is(problems.length, 1, JSON.stringify(problems))
    assert.is(problems[0]!.file, file)
    assert.is(problems[0]!.severity, 'error')
    assert.match(problems[0]!.message, message)
    if (line !== undefined) assert.is(problems[0]!.line, line)
}

const post = (fields: string, body = 'Body.') =>
    `---\ntitle: Hostile\ntime: 2026-01-01T00:00:00Z\n${fields}---\n${body}\n`

test('a front matter that is never closed is a problem, not fields and no body', async () => {
    const { served, problems } = await loadPost(
        'unclosed',
        'item.md',
        '---\ntitle: x\ntime: 2026-01-01T00:00:00Z\nrating: 3\n',
    )
    assert.not.ok(served)
    assertOneError(
        problems,
        'posts/unclosed/item.md',
        /front matter opened by "---" on line 1 is never closed/,
        1,
    )
    // A file cut short in its front matter, as an interrupted copy leaves it.
    const whole = post('tags: []\n', 'A long description.')
    const cut = await loadPost('cut-short', 'item.md', whole.slice(0, whole.length / 3))
    assert.not.ok(cut.served)
    assertOneError(cut.problems, 'posts/cut-short/item.md', /never closed/)
})

test('bytes that are not UTF-8 are a problem on their line, never replaced', async () => {
    const bytes = Buffer.concat([
        Buffer.from('title: "ok"\ntime: 2026-01-01T00:00:00Z\nsubtitle: "'),
        Buffer.from([0xc3, 0x28, 0xff]),
        Buffer.from('"\n'),
    ])
    const { served, problems } = await loadPost('latin1', 'item.yaml', bytes)
    assert.not.ok(served)
    assertOneError(problems, 'posts/latin1/item.yaml', /not valid UTF-8/, 3)
})

test('a key given twice is a problem on the second one, found in one pass over 25,000 keys', async () => {
    const keys = Array.from({ length: 25_000 }, (_, index) => `  key${index}: ${index}\n`).join('')
    const { served, problems } = await loadPost(
        'twice',
        'item.md',
        post(`meta:\n${keys}  key7: again\n`),
    )
    assert.not.ok(served)
    assertOneError(problems, 'posts/twice/item.md', /the key "key7" is given twice/, 25_005)
    const fine = await loadPost('many-keys', 'item.md', post(`meta:\n${keys}`))
    assert.equal(fine.problems, [])
    assert.is(Object.keys(fine.served!.fields.meta as object).length, 25_000)
})

test('a record past the size limit is refused before it is read: 200,000 keys', async () => {
    const keys = Array.from({ length: 200_000 }, (_, index) => `  key${index}: ${index}\n`).join('')
    const { served, problems } = await loadPost('huge', 'item.md', post(`meta:\n${keys}`))
    assert.not.ok(served)
    assertOneError(
        problems,
        'posts/huge/item.md',
        /the file is 3\.\d MiB; a file of this kind may hold at most 512 KiB/,
    )
})

test('a leaderboard of 300,000 records is refused by its size; one of 10,000 loads', async () => {
    const records = (count: number) =>
        `title: Many\nrecords:\n${Array.from({ length: count }, (_, index) => `  - { player: P${index}, value: "${count - index}" }\n`).join('')}`
    const folder = join(content, 'levels', 'first-steps', 'leaderboards')
    await writeFile(join(folder, 'huge.yaml'), records(300_000))
    await writeFile(join(folder, 'many.yaml'), records(10_000))
    try {
        const catalog = await loadCatalog({
            content,
            name: 'service',
            drafts: false,
            cache: join(content, '.shelf'),
        })
        const problems = catalog.problems.filter((problem) =>
            problem.file.startsWith('levels/first-steps/leaderboards/'),
        )
        assertOneError(problems, 'levels/first-steps/leaderboards/huge.yaml', /at most 1\.0 MiB/)
        const boards = catalog.get('level', 'first-steps')!.leaderboards
        assert.is(boards.find((board) => board.name === 'many')?.records.length, 10_000)
        assert.not.ok(boards.some((board) => board.name === 'huge'))
    } finally {
        await rm(join(folder, 'huge.yaml'))
        await rm(join(folder, 'many.yaml'))
    }
})

test('records with the same name in a leaderboard are a problem', async () => {
    const folder = join(content, 'levels', 'first-steps', 'leaderboards')
    await writeFile(
        join(folder, 'twice.yaml'),
        'title: Twice\nrecords:\n  - { name: a, player: A, value: "1" }\n  - { name: b, player: B, value: "2" }\n  - { name: a, player: C, value: "3" }\n',
    )
    try {
        const catalog = await loadCatalog({
            content,
            name: 'service',
            drafts: false,
            cache: join(content, '.shelf'),
        })
        const problem = catalog.problems.find(
            (candidate) => candidate.file === 'levels/first-steps/leaderboards/twice.yaml',
        )
        assert.match(problem?.message ?? '', /two records are named "a"/)
    } finally {
        await rm(join(folder, 'twice.yaml'))
    }
})

test('deep nesting and alias bombs are problems, not a crash or a hang', async () => {
    const deepJson = await loadPost(
        'deep-json',
        'item.json',
        `{"title":"Deep","time":"2026-01-01T00:00:00Z","meta":{"deep":${'['.repeat(100_000)}${']'.repeat(100_000)}}}`,
    )
    assertOneError(
        deepJson.problems,
        'posts/deep-json/item.json',
        /nested more than 64 levels deep/,
    )
    const deepYaml = await loadPost(
        'deep-yaml',
        'item.yaml',
        `title: Deep\ntime: 2026-01-01T00:00:00Z\nmeta: { deep: ${'['.repeat(10_000)}${']'.repeat(10_000)} }\n`,
    )
    assert.not.ok(deepYaml.served)
    assert.is(deepYaml.problems.length, 1)
    const lines = [
        'title: Bomb',
        'time: 2026-01-01T00:00:00Z',
        'a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]',
    ]
    for (let level = 1; level <= 9; level++)
        lines.push(
            `a${level}: &a${level} [${Array.from({ length: 9 }, () => `*a${level - 1}`).join(', ')}]`,
        )
    const bomb = await loadPost('bomb', 'item.yaml', `${lines.join('\n')}\nmeta: { bomb: *a9 }\n`)
    assert.not.ok(bomb.served)
    assertOneError(bomb.problems, 'posts/bomb/item.yaml', /alias/i)
})

test('shelf check fails on a front matter never closed and on bytes that are not UTF-8', async () => {
    const folder = await copyContent()
    try {
        await writeFile(
            join(folder, 'posts', 'welcome.md'),
            '---\ntitle: Welcome\ntime: 2026-01-01T00:00:00Z\n',
        )
        await writeFile(
            join(folder, 'posts', 'patch-notes', 'item.yaml'),
            Buffer.concat([
                Buffer.from('time: 2026-01-01T00:00:00Z\ntitle: "'),
                Buffer.from([0xff]),
                Buffer.from('"\n'),
            ]),
        )
        const run = await runShelf(['check', folder])
        assert.is.not(run.code, 0, describeRun(run))
        assert.match(
            run.stdout + run.stderr,
            /posts\/welcome\.md:1:1 +the front matter opened by "---" on line 1 is never closed/,
        )
        assert.match(
            run.stdout + run.stderr,
            /posts\/patch-notes\/item\.yaml:2 +the file is not valid UTF-8/,
        )
    } finally {
        await rm(folder, { recursive: true, force: true })
    }
})

test('a server.yaml broken while watching keeps the last good settings serving', async () => {
    const folder = await copyContent()
    const server = await startTestServer({ content: folder, watch: true })
    try {
        const good = await readFile(join(folder, 'server.yaml'), 'utf8')
        const info = async () =>
            (await getJson<{ title: string; buttons: unknown[] }>(`${server.root}/info`)).body
        const before = await info()
        assert.is(before.title, 'Shelf example')
        const breakages = [
            Buffer.from([0x00, 0xff, 0x13, 0x37, 0x80, 0x81]),
            // Cut in the middle of a line, as an interrupted copy leaves it.
            Buffer.from(good.slice(0, good.indexOf('{ query: description') + 12)),
            Buffer.from('title: 42\n'),
            Buffer.from(
                'a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]\ne: [*d, *d, *d, *d, *d, *d, *d, *d, *d]\n',
            ),
        ]
        for (const broken of breakages) {
            await writeFile(join(folder, 'server.yaml'), broken)
            const deadline = Date.now() + 5_000
            while (
                !server
                    .catalog()
                    .problems.some(
                        (problem) => problem.file === 'server.yaml' && problem.severity === 'error',
                    )
            ) {
                assert.ok(
                    Date.now() < deadline,
                    `server.yaml ${JSON.stringify(broken.toString('latin1').slice(0, 40))} reported within 5 s`,
                )
                await new Promise((resolve) => setTimeout(resolve, 20))
            }
            const now = await info()
            assert.is(now.title, before.title, 'the last good title keeps serving')
            assert.equal(now.buttons, before.buttons)
            const problem = server
                .catalog()
                .problems.find((candidate) => candidate.file === 'server.yaml')!
            assert.match(problem.message, /the last good version keeps serving/)
            await writeFile(join(folder, 'server.yaml'), good)
            while (
                server
                    .catalog()
                    .problems.some(
                        (candidate) =>
                            candidate.file === 'server.yaml' && candidate.severity === 'error',
                    )
            )
                await new Promise((resolve) => setTimeout(resolve, 20))
        }
    } finally {
        await server.stop()
        await rm(folder, { recursive: true, force: true })
    }
})

test('a folder whose server.yaml is broken from the start serves under a neutral title', async () => {
    const folder = await temporaryFolder()
    try {
        await writeFile(join(folder, 'server.yaml'), 'title: [unclosed\n')
        const catalog = await loadCatalog({
            content: folder,
            name: 'service',
            drafts: false,
            cache: join(folder, '.shelf'),
        })
        assert.is(JSON.stringify(catalog.settings.title), JSON.stringify('Shelf'))
        assert.ok(catalog.problems.some((problem) => problem.file === 'server.yaml'))
    } finally {
        await rm(folder, { recursive: true, force: true })
    }
})

test.run()
