/**
 * `shelf check` reports every mistake of a file in one run, not one layer at a time (a wrong
 * field, a misspelt reference and a missing resource together), and a YAML syntax error names
 * the line at fault in an owner's words.
 */
import { readFile, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import type { Problem } from '../src/content/problems.js'
import { describeRun, runShelf } from './support/run-cli.js'
import { copyContent } from './support/server.js'

let content: string

test.before(async () => {
    content = await copyContent()
})

test.after(async () => {
    await rm(content, { recursive: true, force: true })
})

const checkJson = async () => {
    const run = await runShelf(['check', content, '--format', 'json'])
    assert.is(run.code, 1, describeRun(run))
    return (JSON.parse(run.stdout) as { problems: Problem[] }).problems
}

test('a wrong field, two misspelt references and a missing resource of one level, all at once', async () => {
    const record = join(content, 'levels/city-lights/item.yaml')
    const text = await readFile(record, 'utf8')
    await writeFile(
        record,
        text.replace('rating: 24\n', 'rating: high\nuseSkin: neon-glwo\nengine: shelf-tpa\n'),
    )
    await rm(join(content, 'levels/city-lights/cover.png'))
    const problems = (await checkJson()).filter(
        (problem) => problem.file === 'levels/city-lights/item.yaml',
    )
    const byField = new Map(problems.map((problem) => [problem.field, problem]))
    assert.match(byField.get('rating')?.message ?? '', /expected number, got "high"/)
    assert.match(byField.get('useSkin')?.message ?? '', /skin "neon-glwo" .*"neon-glow"/)
    assert.match(byField.get('engine')?.message ?? '', /engine "shelf-tpa" .*"shelf-tap"/)
    assert.match(byField.get('cover')?.message ?? '', /missing resource "cover"/)
    const lines = text.split('\n')
    assert.is(byField.get('rating')?.line, lines.indexOf('rating: 24') + 1)
    assert.is(byField.get('useSkin')?.line, lines.indexOf('rating: 24') + 2)
    await writeFile(record, text)
    await writeFile(
        join(content, 'levels/city-lights/cover.png'),
        await readFile(join(content, 'levels/first-steps/cover.png')),
    )
})

test('an indentation mistake is reported at the line indented too far', async () => {
    const record = join(content, 'levels/secret-garden/item.yaml')
    const original = await readFile(record, 'utf8')
    const lines = original.split('\n')
    const at = lines.findIndex((line) => /^rating: /.test(line))
    assert.ok(at > 0, 'the record has a rating line')
    // `rating: 40` then `  author: …`: the second line reads as part of the rating.
    lines.splice(at + 1, 0, '  author: Someone')
    await writeFile(record, lines.join('\n'))
    const problems = (await checkJson()).filter(
        (problem) => problem.file === 'levels/secret-garden/item.yaml',
    )
    assert.is(problems.length, 1, JSON.stringify(problems))
    const [problem] = problems as [Problem]
    assert.is(problem.line, at + 2, 'the line indented too far')
    assert.match(problem.message, new RegExp(`line ${at + 2} is indented more than line ${at + 1}`))
    assert.not.match(problem.message, /compact mappings/, 'not in the parser’s words')
    await writeFile(record, original)
})

test.run()
