/**
 * `shelf check [DIR] [--format json] [--drafts]` as CI runs it: a child process per run, judged
 * by its exit code (0 no problems, 1 any problem or an unusable folder, 2 a usage error), its
 * output, and the folder it checked, which it must leave exactly as it was.
 */
import { readFile, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import type { Problem } from '../src/content/problems.js'
import { snapshotTree } from './support/fixtures.js'
import { describeRun, runShelf, type Run } from './support/run-cli.js'
import { copyContent, exampleContent, temporaryFolder } from './support/server.js'

const lines = (text: string) => text.split('\n').filter((line) => line.trim() !== '')

/** `[severity ]file:line:column  field: message`, as a person reads it and an editor jumps to it. */
const problemLine = /^(?:(error|warning) )?(\S+):(\d+):(\d+)  (\S+): (.+)$/

let scratch: string
let broken: string
let exampleBefore: Map<string, string>
let exampleAfter: Map<string, string>
let brokenBefore: Map<string, string>
let brokenAfter: Map<string, string>
/** Where the two mistakes of the broken copy are. */
let ratingLine: number
const runs: Record<'example' | 'broken' | 'brokenJson' | 'missing' | 'unknownFlag', Run> =
    {} as never

test.before(async () => {
    scratch = await temporaryFolder('shelf-check-test-')
    broken = await copyContent()

    // Mistake 1: a field of the wrong type in a level nothing else uses.
    const levelRecord = join(broken, 'levels/secret-garden/item.yaml')
    const levelText = await readFile(levelRecord, 'utf8')
    assert.ok(levelText.includes('\nrating: 40\n'))
    await writeFile(levelRecord, levelText.replace('\nrating: 40\n', '\nrating: very hard\n'))
    ratingLine = levelText.split('\n').indexOf('rating: 40') + 1
    // Mistake 2: a comment without its required author.
    const comment = join(broken, 'levels/first-steps/comments/2026-05-09-niaj.md')
    const commentText = await readFile(comment, 'utf8')
    assert.ok(commentText.includes('author: Niaj\n'))
    await writeFile(comment, commentText.replace('author: Niaj\n', ''))

    exampleBefore = await snapshotTree(exampleContent)
    brokenBefore = await snapshotTree(broken)
    // The runs only read, so they may run side by side.
    const [example, brokenText, brokenJson, missing, unknownFlag] = await Promise.all([
        runShelf(['check', 'content']),
        runShelf(['check', broken]),
        runShelf(['check', broken, '--format', 'json']),
        runShelf(['check', join(scratch, 'no-such-folder')]),
        runShelf(['check', 'content', '--bogus']),
    ])
    Object.assign(runs, { example, broken: brokenText, brokenJson, missing, unknownFlag })
    exampleAfter = await snapshotTree(exampleContent)
    brokenAfter = await snapshotTree(broken)
})

test.after(async () => {
    if (scratch) await rm(scratch, { recursive: true, force: true })
    if (broken) await rm(broken, { recursive: true, force: true })
})

test('the example content: exit 0 and a "no problems" line', () => {
    const run = runs.example
    assert.is(run.code, 0, describeRun(run))
    const output = lines(run.stdout)
    assert.is(output.length, 1, `only the summary line:\n${run.stdout}`)
    assert.match(output[0]!, /^no problems in content \(\d+ items\)$/, describeRun(run))
    assert.is(run.stderr, '', 'nothing on stderr')
})

test('checking writes nothing into the folder checked (no .shelf, no changed file)', () => {
    const diff = (before: Map<string, string>, after: Map<string, string>) => [
        ...[...after.keys()].filter((path) => !before.has(path)).map((path) => `added ${path}`),
        ...[...before.keys()].filter((path) => !after.has(path)).map((path) => `removed ${path}`),
        ...[...before.keys()]
            .filter((path) => after.has(path) && after.get(path) !== before.get(path))
            .map((path) => `changed ${path}`),
    ]
    assert.equal(diff(exampleBefore, exampleAfter), [], 'content/ is left as it was')
    assert.equal(diff(brokenBefore, brokenAfter), [], 'the broken copy is left as it was')
    assert.not.ok(brokenAfter.has('.shelf/'), 'no .shelf in the broken copy')
})

test('a folder with two problems: exit 1, each printed as "file:line:column  field: message", then a count', () => {
    const run = runs.broken
    assert.is(run.code, 1, describeRun(run))
    const output = lines(run.stdout)
    const printed = output
        .filter((line) => problemLine.test(line))
        .map((line) => {
            const [, severity, file, lineNumber, column, field, message] = problemLine.exec(line)!
            return {
                severity,
                file,
                line: Number(lineNumber),
                column: Number(column),
                field,
                message: message!,
            }
        })
    assert.is(printed.length, 2, `two problem lines:\n${run.stdout}`)

    const rating = printed.find((problem) => problem.file === 'levels/secret-garden/item.yaml')
    assert.ok(rating, `the level's problem is printed:\n${run.stdout}`)
    assert.is(rating!.line, ratingLine, 'on the line of the mistake')
    assert.ok(rating!.column >= 1)
    assert.is(rating!.field, 'rating')
    assert.match(rating!.message, /number/)

    const author = printed.find(
        (problem) => problem.file === 'levels/first-steps/comments/2026-05-09-niaj.md',
    )
    assert.ok(author, `the comment's problem is printed:\n${run.stdout}`)
    assert.is(author!.field, 'author')
    assert.match(author!.message, /author/)

    const summary = output.filter((line) => !problemLine.test(line))
    assert.is(summary.length, 1, `one line besides the problems:\n${run.stdout}`)
    assert.match(summary[0]!, /^2 problems in /)
    assert.ok(summary[0]!.includes(broken), `the summary names the folder: ${summary[0]}`)
})

test('--format json: the same problems as JSON { folder, problems }, exit 1', () => {
    const run = runs.brokenJson
    assert.is(run.code, 1, describeRun(run))
    let report: { folder: string; problems: Problem[] }
    try {
        report = JSON.parse(run.stdout) as typeof report
    } catch {
        throw new Error(`stdout is not one JSON document:\n${run.stdout}`)
    }
    assert.is(report.folder, broken)
    assert.ok(Array.isArray(report.problems))
    assert.is(report.problems.length, 2, JSON.stringify(report.problems))
    for (const problem of report.problems) {
        assert.type(problem.file, 'string')
        assert.type(problem.line, 'number', `${problem.file}: line`)
        assert.type(problem.field, 'string', `${problem.file}: field`)
        assert.type(problem.message, 'string')
        assert.is(problem.severity, 'error')
    }
    const rating = report.problems.find(
        (problem) => problem.file === 'levels/secret-garden/item.yaml',
    )
    assert.is(rating?.line, ratingLine)
    assert.is(rating?.field, 'rating')
    assert.ok(
        report.problems.some(
            (problem) =>
                problem.file === 'levels/first-steps/comments/2026-05-09-niaj.md' &&
                problem.field === 'author',
        ),
    )

    // The text run printed exactly these.
    const printed = lines(runs.broken.stdout).filter((line) => problemLine.test(line))
    for (const problem of report.problems) {
        const where = `${problem.file}:${problem.line}:${problem.column}  ${problem.field}: ${problem.message}`
        assert.ok(
            printed.some((line) => line.endsWith(where)),
            `text output has "${where}":\n${printed.join('\n')}`,
        )
    }
})

test('a folder that does not exist: exit 1 and a message naming it', () => {
    const run = runs.missing
    assert.is(run.code, 1, describeRun(run))
    assert.ok(run.stderr.includes(join(scratch, 'no-such-folder')), describeRun(run))
    assert.match(run.stderr, /does not exist/)
    assert.not.match(run.stdout, /no problems/, 'it does not pass')
})

test('an unknown flag: exit 2 and a message naming it', () => {
    const run = runs.unknownFlag
    assert.is(run.code, 2, describeRun(run))
    assert.match(run.stderr, /--bogus/)
    assert.not.match(run.stdout, /problem/, 'nothing is checked')
})

test.run()
