/**
 * Which keys (URLs) were asked for before, held as a fixed table of their hashes: the doorkeeper
 * of a cache of answers, so that only an answer asked for a second time is kept. A long tail of
 * URLs asked once (a signed-in player's pages, every search) would otherwise fill the cache with
 * entries nobody asks for again, each outliving a few collections and then dying in the old
 * generation, which is what brings the long full collections on: at 100,000 plays, a page asked
 * under ever new URLs grew the old generation by 0.7 MB/s kept, 0.06 MB/s not.
 *
 * Two keys may share a slot: the later one pushes the earlier out (asked again, it is kept one
 * ask later), and two keys of the same hash pass for each other (one is kept an ask early). Both
 * cost a little caching, never a wrong answer.
 */
export class AskedBefore {
    readonly #hashes: Int32Array

    /** `slots`: a power of two; a few times the URLs asked for in the time a cache keeps an answer. */
    constructor(slots: number) {
        this.#hashes = new Int32Array(slots)
    }

    /** Whether the key was asked for before (as far as the table remembers); from now on it was. */
    note(key: string): boolean {
        // FNV-1a, then MurmurHash3's finalizer: FNV alone leaves the low bits (the slot) of keys
        // that differ in their last characters (`page=672`, `page=674`) alike. Never 0, which an
        // empty slot holds.
        let hash = 0x811c9dc5
        for (let index = 0; index < key.length; index++)
            hash = Math.imul(hash ^ key.charCodeAt(index), 0x01000193)
        hash = Math.imul(hash ^ (hash >>> 16), 0x85ebca6b)
        hash = Math.imul(hash ^ (hash >>> 13), 0xc2b2ae35)
        hash = (hash ^ (hash >>> 16)) | 1
        const slot = hash & (this.#hashes.length - 1)
        if (this.#hashes[slot] === hash) return true
        this.#hashes[slot] = hash
        return false
    }
}
