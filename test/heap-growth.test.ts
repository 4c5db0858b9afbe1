import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { getHeapStatistics } from 'node:v8'
import { collectBeforeServing } from '../src/util/heap-growth.js'

const usedMiB = () => getHeapStatistics().used_heap_size / 2 ** 20

/** Long-lived enough to reach the old generation, which only a full collection frees; unreachable once it returns. */
const leaveGarbage = () => {
    const garbage: { at: number; text: string }[] = []
    for (let at = 0; at < 1_500_000; at++) garbage.push({ at, text: `entry ${at}` })
    return garbage.length
}

test('a start collects its garbage before its listening line, without exposing gc to the content it serves', () => {
    const kept = leaveGarbage()
    const before = usedMiB()
    assert.ok(before > 80, `the heap holds the garbage (${before.toFixed(0)} MiB)`)
    collectBeforeServing()
    const after = usedMiB()
    assert.ok(
        after < before - 60,
        `${kept} entries freed: ${before.toFixed(0)} → ${after.toFixed(0)} MiB`,
    )
    assert.is(typeof (globalThis as { gc?: unknown }).gc, 'undefined')
})

test.run()
