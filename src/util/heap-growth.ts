import { PerformanceObserver } from 'node:perf_hooks'
import { getHeapStatistics, setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'

const heapGrowth = '--heap-growing-percent'

/** A growth given to node itself wins (node refuses it in NODE_OPTIONS). */
const givenToNode = process.execArgv.some((option) => option.startsWith(heapGrowth))

/**
 * How far V8 lets the old generation grow past what survived its last full collection before
 * it collects again, in percent; V8 reads it at every full collection.
 *
 * At 50%, the rest of a process's life: V8's own choice (several times what survived) held 750
 * MiB resident for 230 MiB alive after a full read of 100,000 levels, half at a time kept the
 * peak near what stays alive (560 MiB there) at no measurable cost in start-up time.
 *
 * At 300% while a start from the snapshot loads, until the listening line: at 100,000 levels it
 * keeps nearly all it makes (the records and the first catalog, about 270 MB), and growing by
 * half at a time marked that heap six times over (at 39, 71, 110, 161, 247 and 332 MB) for
 * little garbage found: V8's helper threads spent 3 s of CPU on it, 1.6 s at 300%. A start that
 * reads folders makes garbage as it goes: see `growHeapWhileSmall`.
 */
export const growHeapBy = (percent: number) => {
    whileSmall?.disconnect()
    whileSmall = undefined
    if (!givenToNode) setFlagsFromString(`${heapGrowth}=${percent}`)
}

let whileSmall: PerformanceObserver | undefined

/**
 * Grows by `startHeapGrowth` while the heap is small, for a start that reads folders: once a
 * collection finds more than `smallHeapBytes` in use, by half again, before the next full
 * collection sets how far the heap may grow. At 10,000 levels a start keeps about 50 MB, and
 * growing by half marked that heap six times over (at 24, 36, 40, 47, 58 and 63 MB) before the
 * listening line (1–2 at 300%: V8's helper threads spent about 0.4 s less). A larger folder's
 * start makes more garbage as it goes: no full collection after its heap holds `smallHeapBytes`
 * lets it grow by 300%, so its peak later in the start stays where it was.
 */
export const growHeapWhileSmall = () => {
    growHeapBy(startHeapGrowth)
    if (givenToNode) return
    const observer = new PerformanceObserver(() => {
        if (getHeapStatistics().used_heap_size > smallHeapBytes) growHeapBy(servingHeapGrowth)
    })
    observer.observe({ entryTypes: ['gc'] })
    whileSmall = observer
}

/** The heap in use past which a start that reads folders grows by half again. */
const smallHeapBytes = 64 * 1024 * 1024

/** While a start loads (src/server.ts): few full collections of a heap that only grows, or is small. */
export const startHeapGrowth = 300

/** Once serving: the peak near what stays alive. */
export const servingHeapGrowth = 50

/**
 * Grows the heap so that a full collection now lets it reach `bytes` before the next one (by
 * `startHeapGrowth` at least). A start from the snapshot knows about how large its heap will be
 * at the listening line (see start-snapshot.ts): growing by 300% from wherever the first full
 * collections happened to fall gave two of them before the line in some starts and three in
 * others (the last of a 320 MB heap), by where the first one fell.
 */
export const growHeapToward = (bytes: number) => {
    const used = getHeapStatistics().used_heap_size
    growHeapBy(Math.max(startHeapGrowth, Math.ceil((bytes / used - 1) * 100)))
}

/**
 * A full collection now, before the listening line, of a heap past `smallHeapBytes`. A start
 * from the snapshot of 100,000 levels left 110 MB of garbage in a 420 MB heap (the snapshot's
 * lines, the warm-up's answers), and V8 collected it in the first seconds of serving, in the
 * first scan and the first writes: its last marking steps and its evacuation held the loop up
 * to 20 ms at once, with incremental steps of 16 ms before it. Collected here, it holds nobody,
 * and the next full collection comes only once the heap has grown by half of what stays alive.
 * Node has no call for it but the `gc` of a context made after `--expose-gc` is set.
 */
export const collectBeforeServing = () => {
    if (getHeapStatistics().used_heap_size < smallHeapBytes) return
    setFlagsFromString('--expose-gc')
    ;(runInNewContext('gc') as () => void)()
}
