import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { AskedBefore } from '../src/http/asked-before.js'

const urls = Array.from({ length: 1000 }, (_, index) => `/sonolus/levels/list?page=${index}`)

test('a key is asked before from its second ask, not at its first', () => {
    const asked = new AskedBefore(1 << 16)
    for (const url of urls) {
        assert.is(asked.note(url), false, url)
        assert.is(asked.note(url), true, url)
    }
})

test('keys alike but for their last characters spread over the table', () => {
    const asked = new AskedBefore(1 << 16)
    assert.equal(
        urls.filter((url) => asked.note(url)),
        [],
        'none passes for another',
    )
    // 1,000 keys in 65,536 slots share about 8 of them by chance; hashes alike in their low bits would share hundreds.
    const forgotten = urls.filter((url) => !asked.note(url))
    assert.ok(forgotten.length <= 30, `${forgotten.length} forgotten`)
})

test('a table full of other keys forgets a key rather than growing', () => {
    const asked = new AskedBefore(16)
    asked.note('first')
    for (let index = 0; index < 1000; index++) asked.note(`other ${index}`)
    assert.is(asked.note('first'), false)
    assert.is(asked.note('first'), true)
})

test.run()
