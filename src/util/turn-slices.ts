import { setImmediate as nextTurn } from 'node:timers/promises'

/**
 * Lets the requests that came meanwhile in before going on. One `setImmediate` does not when the
 * work was resumed by I/O (a worker's answer, a file read): its callback runs in the check phase
 * of the same turn, before the loop polls again, so two steps split by it held the loop as one
 * (at 100,000 levels the snapshot checks' answer and the reading again, 28 ms). A second one runs
 * after the next poll, whatever phase the first was asked from.
 */
export const letRequestsIn = async () => {
    await nextTurn()
    await nextTurn()
}

/** How long a slice of long work holds the event loop: a request waits at most about this long behind it. */
const defaultSliceMs = 4

/**
 * A slice of the work that follows the listening line beside serving (the resource table's fill,
 * the search indexes, the snapshot's checks taken in and its save). A collection of the young
 * generation can land in any turn, 2-8 ms at 100,000 levels: beside 4 ms slices of the
 * snapshot's save, turns of 10-11 ms of CPU, and one of 20 ms with a full collection's last step.
 */
export const besideServingMs = 1

/**
 * Long work shared with requests, a slice of time at a time: the worker asks `due()` between its
 * steps and, when it says so, awaits `pause()`, a turn of the event loop. Counting steps instead
 * (a thousand units a turn) holds the loop as long as those steps happen to take: at a hundred
 * thousand levels a piece of the start snapshot's records took 24 ms of CPU, and more on a
 * slower or busier machine.
 */
export class TurnSlices {
    private sliceEnd: number

    constructor(private readonly sliceMs = defaultSliceMs) {
        this.sliceEnd = performance.now() + sliceMs
    }

    /** Whether this slice has had its time. */
    due() {
        return performance.now() >= this.sliceEnd
    }

    /**
     * Lets the requests that came meanwhile in, then begins the next slice: by two turns, since
     * work resumed by I/O (a folder listed, a worker's answer) would run its next slice in the
     * same turn with one.
     */
    async pause() {
        await letRequestsIn()
        this.sliceEnd = performance.now() + this.sliceMs
    }
}
