import { setTimeout as sleep } from 'node:timers/promises'

/**
 * How many requests the serving thread has taken, in memory its worker threads share, so that
 * long work on one of them can give way while requests come.
 */
export type ServedRequests = Int32Array

export const servedRequests = (): ServedRequests => new Int32Array(new SharedArrayBuffer(4))

export const countServedRequest = (served: ServedRequests) => void Atomics.add(served, 0, 1)

/**
 * A worker's long work, slice by slice, rests as long again after a slice in which requests
 * came, and goes straight on when none did: an idle server's work runs at full speed. On two
 * cores shared with a client, the first watch scan of 10,000 levels doubled the answers' median
 * while it lasted, even in the idle class (thread-priority.ts); with these rests as well, the
 * median during the scan was within a third of the one after it.
 */
export class RestWhileServed {
    private seen: number

    constructor(private readonly served: ServedRequests | undefined) {
        this.seen = served ? Atomics.load(served, 0) : 0
    }

    async afterSlice(sliceMs: number) {
        if (!this.served || Atomics.load(this.served, 0) === this.seen) return
        await sleep(sliceMs)
        this.seen = Atomics.load(this.served, 0)
    }
}
