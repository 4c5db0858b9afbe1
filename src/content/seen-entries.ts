/** An entry kept per path, marked once the current load has found it still true. */
export type SeenEntry = { seen: boolean }

/**
 * Maps the entries are spread over by their path's hash: a map grows by copying every entry it
 * holds into a table twice the size, which for one map of 400,000 entries (a hundred thousand
 * levels' resources) held the event loop for 35 ms at a time while a reload read them.
 */
const shardBits = 4

/** FNV-1a of the path, its top bits picking the map. */
const shardIndex = (path: string) => {
    let hash = 0x811c9dc5
    for (let index = 0; index < path.length; index++)
        hash = Math.imul(hash ^ path.charCodeAt(index), 0x01000193)
    return hash >>> (32 - shardBits)
}

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
    private replaced = false
    private keepingUnseen = false

    /**
     * An entry as the file holds it, while the file is read: added one by one as they are parsed,
     * a piece at a time, since a map of a hundred thousand levels' 400,000 entries made at once
     * held the event loop for most of a second.
     */
    stored(path: string, entry: Entry) {
        const shard = this.shardOf(path)
        const size = shard.size
        shard.set(path, entry)
        this.storedCount += shard.size - size
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

    /**
     * The entries seen, to be written, in pieces of `size` taken between turns of the event loop:
     * at a hundred thousand levels, gathering them at once held the loop for tens of milliseconds.
     * A path remembered while the pieces are taken (by a reload) leaves the entries unsaved again,
     * so the next save writes it whichever version this one caught.
     */
    async *takeSeen(size: number): AsyncGenerator<[string, Entry][]> {
        this.replaced = false
        let count = 0
        let piece: [string, Entry][] = []
        for (const shard of this.shards)
            for (const pair of shard) {
                if (!pair[1].seen && !this.keepingUnseen) continue
                piece.push(pair)
                if (piece.length < size) continue
                count += piece.length
                yield piece
                piece = []
            }
        count += piece.length
        if (piece.length) yield piece
        this.storedCount = count
    }
}
