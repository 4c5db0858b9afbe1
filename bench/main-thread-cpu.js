/**
 * The main thread's time on a core so far, in nanoseconds (Linux's schedstat of the task whose id
 * is the process id). A stall of the event loop is the main thread's: the process's CPU time
 * would also count its worker threads and libuv's pool working beside it. Plain JavaScript, for
 * bench/loop-stall-probe.js, which runs inside a server without a loader of TypeScript.
 */
import { openSync, readSync } from 'node:fs'

/** Opened once and read from the start each time: a read is a few microseconds, asked every millisecond. */
let schedstat
const buffer = Buffer.alloc(128)

export const mainThreadCpuNs = () => {
    schedstat ??= openSync(`/proc/${process.pid}/task/${process.pid}/schedstat`, 'r')
    const length = readSync(schedstat, buffer, 0, buffer.length, 0)
    return Number(buffer.toString('latin1', 0, length).split(' ')[0])
}
