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
 * came, and goes straight on when none did. On two cores shared with a client, the first watch
 * scan at full speed doubled the answers' median at 10,000 levels while it lasted, even at the
 * lowest priority or in the idle class (the cores' caches and the process's memory are shared
 * too). Resting half the time under requests, the median during the scan was the one after it;
 * an idle server scans at full speed.
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
