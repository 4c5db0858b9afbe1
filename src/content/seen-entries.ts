/** An entry kept per path, marked once the current load has found it still true. */
export type SeenEntry = { seen: boolean }

/**
 * Maps the entries are spread over by their path's hash: a map grows by copying every entry it
 * holds into a table twice the size, which for one map of 400,000 entries (a hundred thousand
 * levels' resources) held the event loop for 35 ms at a time while a reload read them. They are
 * picked by the hash's top bits, which the file is ordered by (hash-cache.ts): the entries of one
 * map are written together, sorted a few hundred at a time.
 */
const shardBits = 8
export const shardCount = 1 << shardBits

/** FNV-1a of a path, which the hash cache's file is ordered by. */
export const pathHash = (path: string) => {
    let hash = 0x811c9dc5
    for (let index = 0; index < path.length; index++)
        hash = Math.imul(hash ^ path.charCodeAt(index), 0x01000193)
    return hash >>> 0
}

const shardIndex = (path: string) => pathHash(path) >>> (32 - shardBits)

/**
 * Entries remembered per path from an earlier start, and which of them this run has seen: only
 * those are written back, so files deleted since do not linger. One map with a mark per entry,
 * rather than a second map of the entries seen: at a hundred thousand levels that second map
 * held 400,000 entries and filling it was a tenth of a warm start.
 */
export class SeenEntries<Entry extends SeenEntry> {
    private readonly shards = Array.from({ length: 1 << shardBits }, () => new Map<string, Entry>())
    private seenCount = 0
    /** How many entries the file holds, and whether any of them was replaced since it was written. */
    private storedCount = 0
    private writtenCount = 0
    private replaced = false
    private keepingUnseen = false

    /**
     * An entry as the file holds it, while the file is read: added one by one as they are parsed,
     * a piece at a time, since a map of a hundred thousand levels' 400,000 entries made at once
     * held the event loop for most of a second. One already there (looked up, or remembered) stays.
     */
    stored(path: string, entry: Entry) {
        const shard = this.shardOf(path)
        if (shard.has(path)) return
        shard.set(path, entry)
        this.storedCount++
    }

    /**
     * Takes in the entries of `other`, which win over these: those looked up one at a time
     * before the whole file was read into these.
     */
    absorb(other: SeenEntries<Entry>) {
        for (const shard of other.shards)
            for (const [path, entry] of shard) {
                const mine = this.shardOf(path)
                if (!mine.get(path)?.seen && entry.seen) this.seenCount++
                mine.set(path, entry)
            }
        this.replaced ||= other.replaced
    }

    private shardOf(path: string) {
        return this.shards[shardIndex(path)]!
    }

    /** The file holds them in a form no longer written: the next save writes them anew. */
    outdated() {
        this.replaced = true
    }

    /** The entry of a path, seen or not; mark it with `see` once it is known to hold. */
    get(path: string): Entry | undefined {
        return this.shardOf(path).get(path)
    }

    see(entry: Entry) {
        if (entry.seen) return
        entry.seen = true
        this.seenCount++
    }

    remember(path: string, entry: Entry) {
        const shard = this.shardOf(path)
        if (!shard.get(path)?.seen) this.seenCount++
        entry.seen = true
        shard.set(path, entry)
        this.replaced = true
    }

    /** Writes the entries not seen too: this run did not look at every path. */
    keepUnseen() {
        this.keepingUnseen = true
    }

    /** Whether what the file holds differs from the entries seen: some were replaced, or some not seen. */
    get unsaved() {
        return this.replaced || (!this.keepingUnseen && this.seenCount !== this.storedCount)
    }

    /** Whether an entry was remembered since the last save: what the file holds of the others is true. */
    get changed() {
        return this.replaced
    }

    /** A save begins: what is remembered from now on is saved by the next one. */
    saving() {
        this.replaced = false
        this.writtenCount = 0
    }

    /**
     * The entries of one map to be written: those seen, or all when unseen are kept. The
     * count of them all, once the last is taken, is what the file holds (`saved`).
     */
    toWrite(shard: number): [string, Entry][] {
        const pairs: [string, Entry][] = []
        for (const pair of this.shards[shard]!)
            if (pair[1].seen || this.keepingUnseen) pairs.push(pair)
        this.writtenCount += pairs.length
        return pairs
    }

    /** The save of every entry to be written (`toWrite`) is over. */
    saved() {
        this.storedCount = this.writtenCount
    }

    /** The entries seen. */
    *seen(): Generator<[string, Entry]> {
        for (const shard of this.shards) for (const pair of shard) if (pair[1].seen) yield pair
    }
}
