/**
 * A worker thread that runs when idle (src/util/thread-priority.ts) and says what the
 * kernel makes of it: its scheduling class and niceness, now and after its loop is held.
 */
import { readFileSync } from 'node:fs'
import { parentPort } from 'node:worker_threads'
import { runWhenIdle } from '../../src/util/thread-priority.js'

/** The class (0 normal, 5 idle) and niceness of this thread, from its /proc stat line. */
const scheduling = () => {
    const fields = readFileSync('/proc/thread-self/stat', 'utf8').split(') ')[1]!.split(' ')
    // Numbered from the state, the third field of the line: nice is the 19th, policy the 41st.
    return { policy: Number(fields[38]), nice: Number(fields[16]) }
}

runWhenIdle()
parentPort!.postMessage(scheduling())
parentPort!.once('message', (holdMs: number) => {
    const until = performance.now() + holdMs
    while (performance.now() < until);
    // The thread's own look comes at its next turn, late by the hold.
    setTimeout(() => parentPort!.postMessage(scheduling()), 50)
})
