/**
 * Background work on worker threads gives way to serving: the threads whose loops turn often run
 * in Linux's idle class and leave it when starved, and the first watch scan rests while requests
 * come.
 */
import { execFileSync } from 'node:child_process'
import { once } from 'node:events'
import { Worker } from 'node:worker_threads'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { countServedRequest, RestWhileServed, servedRequests } from '../src/util/served-requests.js'
import { mayLeaveIdleClass } from '../src/util/thread-priority.js'

const test = suite('background threads')

/** Long enough that a rest is never taken for a slow turn of a busy machine. */
const restMs = 1_500

const SCHED_OTHER = 0
const SCHED_IDLE = 5

/** Whether a thread can enter the idle class here and leave it again: otherwise it stays out. */
const idleClassUsed = (() => {
    try {
        execFileSync('chrt', ['--version'], { stdio: 'ignore' })
        return mayLeaveIdleClass()
    } catch {
        return false
    }
})()

type Scheduling = { policy: number; nice: number }

const startGivingWay = async () => {
    const worker = new Worker(
        `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then((tsx) => tsx.register()).then(() => import(${JSON.stringify(new URL('support/giving-way-worker.ts', import.meta.url).href)}))`,
        { eval: true },
    )
    const [first] = (await once(worker, 'message')) as [Scheduling]
    return { worker, first }
}

test('a thread that runs when idle is in the idle class, below normal priority', async () => {
    if (process.platform !== 'linux') return
    const { worker, first } = await startGivingWay()
    await worker.terminate()
    assert.is(first.nice, 10)
    assert.is(first.policy, idleClassUsed ? SCHED_IDLE : SCHED_OTHER)
})

test('a thread whose loop falls half a second behind leaves the idle class, still below normal', async () => {
    if (process.platform !== 'linux' || !idleClassUsed) return
    const { worker, first } = await startGivingWay()
    assert.is(first.policy, SCHED_IDLE)
    worker.postMessage(800)
    const [after] = (await once(worker, 'message')) as [Scheduling]
    await worker.terminate()
    assert.equal(after, { policy: SCHED_OTHER, nice: 10 })
})

test('long work rests after a slice in which requests came, and only then', async () => {
    const served = servedRequests()
    const rest = new RestWhileServed(served)
    let started = performance.now()
    await rest.afterSlice(restMs)
    assert.ok(performance.now() - started < restMs / 2, 'no request came: no rest')
    countServedRequest(served)
    started = performance.now()
    await rest.afterSlice(restMs)
    assert.ok(
        performance.now() - started >= restMs - 1,
        'a request came: a rest as long as the slice',
    )
    started = performance.now()
    await rest.afterSlice(restMs)
    assert.ok(performance.now() - started < restMs / 2, 'none since: no rest')
})

test('without a count of requests, nothing rests', async () => {
    const rest = new RestWhileServed(undefined)
    const started = performance.now()
    await rest.afterSlice(restMs)
    assert.ok(performance.now() - started < restMs / 2)
})

test.run()
