import { setImmediate as nextTurn } from 'node:timers/promises'

/** How long a slice of long work holds the event loop: a request waits at most about this long behind it. */
const defaultSliceMs = 4

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

    /** Lets a turn of the event loop pass, then begins the next slice. */
    async pause() {
        await nextTurn()
        this.sliceEnd = performance.now() + this.sliceMs
    }
}
