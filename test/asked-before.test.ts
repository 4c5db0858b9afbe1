import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { AskedBefore } from '../src/http/asked-before.js'

test('a key is asked before from its second ask; other keys are not', () => {
    const asked = new AskedBefore(1 << 16)
    const keys = Array.from({ length: 1000 }, (_, index) => `/sonolus/levels/list?page=${index}`)
    assert.equal(
        keys.filter((key) => asked.note(key)),
        [],
    )
    assert.equal(
        keys.filter((key) => !asked.note(key)),
        [],
    )
})

test('a table full of other keys forgets a key rather than growing', () => {
    const asked = new AskedBefore(16)
    asked.note('first')
    for (let index = 0; index < 1000; index++) asked.note(`other ${index}`)
    assert.is(asked.note('first'), false)
    assert.is(asked.note('first'), true)
})

test.run()
