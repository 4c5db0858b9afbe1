/** An entry kept per path, marked once the current load has found it still true. */
export type SeenEntry = { seen: boolean }

/**
 * Entries remembered per path from an earlier start, and which of them this run has seen: only
 * those are written back, so files deleted since do not linger. One map with a mark per entry,
 * rather than a second map of the entries seen: at a hundred thousand levels that second map
 * held 400,000 entries and filling it was a tenth of a warm start.
 */
export class SeenEntries<Entry extends SeenEntry> {
    private readonly entries = new Map<string, Entry>()
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
        this.entries.set(path, entry)
        this.storedCount = this.entries.size
    }

    /** The file holds them in a form no longer written: the next save writes them anew. */
    outdated() {
        this.replaced = true
    }

    /** The entry of a path, seen or not; mark it with `see` once it is known to hold. */
    get(path: string): Entry | undefined {
        return this.entries.get(path)
    }

    see(entry: Entry) {
        if (entry.seen) return
        entry.seen = true
        this.seenCount++
    }

    remember(path: string, entry: Entry) {
        if (!this.entries.get(path)?.seen) this.seenCount++
        entry.seen = true
        this.entries.set(path, entry)
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
        for (const pair of this.entries) {
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
