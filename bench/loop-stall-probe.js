/**
 * Loaded into a Shelf server by `node --import` (bench/write-stall.ts starts it so; plain
 * JavaScript, so the server runs as it always does, without a loader of TypeScript): notes every
 * turn of the event loop that held it for `SHELF_STALL_MS` (5) ms or more, as a line of JSON in
 * the file `SHELF_STALL_LOG`: when it began (ms since the epoch), how long it held the loop on
 * the clock, and how much of that the main thread spent on a core (Linux's schedstat, in
 * nanoseconds: on a busy machine the clock also counts the waits for a core, which the CPU time
 * does not, while a collector's pause that waits for its helper threads counts in the clock only).
 * A 1 ms timer's lateness is the loop's stall; the file is written only when there was one.
 * `mono` is when it began on the clock of `--cpu-prof`'s profiles (microseconds), to find it there.
 */
import { appendFileSync } from 'node:fs'
import { isMainThread } from 'node:worker_threads'
import { mainThreadCpuNs } from './main-thread-cpu.js'

const log = process.env.SHELF_STALL_LOG
const thresholdMs = Number(process.env.SHELF_STALL_MS ?? 5)

// Worker threads are started with the process's flags, this module among them: only the main thread's loop counts.
if (log && isMainThread) {
    // The clock of V8's profiles is the monotonic one process.hrtime reads.
    const monoOffsetUs = Number(process.hrtime.bigint() / 1000n) - performance.now() * 1000
    let last = performance.now()
    let lastCpu = mainThreadCpuNs()
    setInterval(() => {
        const now = performance.now()
        const cpu = mainThreadCpuNs()
        const ms = now - last - 1
        if (ms >= thresholdMs)
            appendFileSync(
                log,
                `${JSON.stringify({
                    at: performance.timeOrigin + last,
                    mono: Math.round(monoOffsetUs + last * 1000),
                    ms,
                    cpuMs: (cpu - lastCpu) / 1e6,
                })}\n`,
            )
        last = now
        lastCpu = cpu
    }, 1).unref()
}
