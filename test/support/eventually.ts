import * as assert from 'uvu/assert'

/**
 * Waits for a check to pass, asking again as soon as it answered, within generous bounds (a busy
 * machine runs several suites at once): what is waited for is the event, never a fixed time.
 */
export const eventually = async (
    what: string,
    check: () => Promise<boolean>,
    withinMs = 60_000,
) => {
    for (const started = Date.now(); Date.now() - started < withinMs;) {
        if (await check().catch(() => false)) return
        await new Promise((resolve) => setTimeout(resolve, 50))
    }
    assert.unreachable(`not within ${withinMs / 1000} s: ${what}`)
}
