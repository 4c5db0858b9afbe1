/**
 * A Markdown record's front matter and body, split as gray-matter split them before Shelf split
 * them itself: at the first newline followed by `---`, whatever follows on that line, with the
 * front matter's line numbers the file's.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { parseRecordFile } from '../src/content/parse-file.js'

const test = suite('front matter split')

const parse = (text: string) => parseRecordFile('levels/a/comments/c.md', text)

// A file saved with Windows line endings reads as one with Unix line endings.
for (const [endings, newline] of [
    ['Unix', '\n'],
    ['Windows', '\r\n'],
])
    test(`the fields, where they are in the file, and the trimmed body (${endings} line endings)`, () => {
        const parsed = parse(
            ['---', 'author: Ann', 'time: 5', '---', '', 'Hello', ''].join(newline),
        )
        assert.equal(parsed.data, { author: 'Ann', time: 5 })
        assert.is(parsed.body, 'Hello')
        assert.equal(parsed.locate(['time']), { line: 3, column: 1 })
    })

test('the front matter ends at the first line opening with ---; later ones belong to the body', () => {
    const parsed = parse('---\nauthor: Ann\n--- \nfirst\n---\nsecond\n')
    assert.equal(parsed.data, { author: 'Ann' })
    assert.is(parsed.body, 'first\n---\nsecond')
})

test('an empty front matter gives no fields', () => {
    const parsed = parse('---\n---\nbody')
    assert.equal(parsed.data, {})
    assert.is(parsed.body, 'body')
})

test('a problem in the front matter names its line in the file', () => {
    try {
        parse('---\nauthor: Ann\nauthor: Bob\n---\nbody')
        assert.unreachable('a duplicate key is a problem')
    } catch (error) {
        assert.is((error as { position?: { line: number } }).position?.line, 3)
    }
})

test.run()
