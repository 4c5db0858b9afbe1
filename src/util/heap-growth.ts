import { setFlagsFromString } from 'node:v8'

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
 * reads folders makes garbage as it goes, and keeps growing by half.
 */
export const growHeapBy = (percent: number) => {
    if (!givenToNode) setFlagsFromString(`${heapGrowth}=${percent}`)
}

/** While a start from the snapshot loads (src/server.ts): few full collections of a heap that only grows. */
export const startHeapGrowth = 300

/** Once serving: the peak near what stays alive. */
export const servingHeapGrowth = 50
