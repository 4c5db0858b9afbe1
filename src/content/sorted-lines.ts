import { close, closeSync, fstatSync, openSync, readSync } from 'node:fs'

/** A line of the file: where it starts, where the next one starts, and its text without the newline. */
export type Line = { start: number; end: number; text: string }

/** A line's start and end, and its key. */
type Probe = [start: number, end: number, hash: number]

/** Probes remembered (`probes`). */
const probesKept = 4096

/** Bytes read at a time when looking for a line's end; a line longer is read in larger pieces. */
const probeBytes = 4096

/** Bytes copied at a time (`copy`). */
const copyBytes = 1024 * 1024

/**
 * A file of a header line, then lines in the order of a number each one is keyed by (`hashOf`,
 * ties in any order), read where a key's lines are without reading the others: a binary search
 * over byte offsets, a few small reads. The probes are remembered: every search passes by the
 * same first few, and a start looks up thousands of keys.
 */
export class SortedLines {
    private buffer = Buffer.allocUnsafe(probeBytes)
    /** Room for the pieces `copy` reads, made at its first. */
    private copyBuffer: Buffer | undefined
    /**
     * Where the line starting at or after an offset starts and ends, and its key, by offset: only
     * the first few thousand probes, which hold the ones every search passes by.
     */
    private readonly probes = new Map<number, Probe>()

    /** The header line's text. */
    readonly header: string
    /** Where the first line after the header starts. */
    readonly dataStart: number

    private constructor(
        private readonly descriptor: number,
        readonly size: number,
        /** The file's inode: another process may have replaced the file since it was opened. */
        readonly inode: number,
        private readonly hashOf: (text: string) => number,
    ) {
        const header = this.lineAt(0)
        this.header = header.text
        this.dataStart = header.end
    }

    /** Throws as `openSync` does. */
    static open(file: string, hashOf: (text: string) => number): SortedLines {
        const descriptor = openSync(file, 'r')
        try {
            const { size, ino } = fstatSync(descriptor)
            return new SortedLines(descriptor, size, ino, hashOf)
        } catch (error) {
            closeSync(descriptor)
            throw error
        }
    }

    /**
     * Closes the file off the main thread: once a save has replaced it, the last descriptor's
     * close frees its blocks, which for 90 MB held the event loop for tens of milliseconds.
     */
    close() {
        close(this.descriptor, () => undefined)
    }

    /** The line starting at `start` (the last one may lack its newline). */
    lineAt(start: number): Line {
        let filled = 0
        for (;;) {
            if (filled === this.buffer.length) {
                const larger = Buffer.allocUnsafe(this.buffer.length * 2)
                this.buffer.copy(larger)
                this.buffer = larger
            }
            const read = readSync(
                this.descriptor,
                this.buffer,
                filled,
                this.buffer.length - filled,
                start + filled,
            )
            const newline = this.buffer.indexOf(0x0a, filled)
            filled += read
            if (newline >= 0 && newline < filled)
                return { start, end: start + newline + 1, text: this.text(newline) }
            if (read === 0) return { start, end: start + filled, text: this.text(filled) }
        }
    }

    private text(length: number) {
        return this.buffer.toString('utf8', 0, length)
    }

    /** Where the first line starting at or after `offset` (past the header) starts: `size` when none does. */
    private lineStartFrom(offset: number) {
        let position = offset - 1
        while (position < this.size) {
            const read = readSync(this.descriptor, this.buffer, 0, this.buffer.length, position)
            if (read === 0) break
            const newline = this.buffer.indexOf(0x0a)
            if (newline >= 0 && newline < read) return position + newline + 1
            position += read
        }
        return this.size
    }

    /** The first line starting at or after `offset`; undefined when none does. */
    private probe(offset: number): Probe | undefined {
        const kept = this.probes.get(offset)
        if (kept) return kept
        const start = offset === this.dataStart ? offset : this.lineStartFrom(offset)
        if (start >= this.size) return undefined
        const line = this.lineAt(start)
        const probed: Probe = [line.start, line.end, this.hashOf(line.text)]
        if (this.probes.size < probesKept) this.probes.set(offset, probed)
        return probed
    }

    /** Where the first line of a key at least `hash` starts (`size` when there is none). */
    private lowerBound(hash: number) {
        // Lines before `low` have smaller keys; `high` is a line's start (or the end), and lines from it on have keys at least `hash`.
        let low = this.dataStart
        let high = this.size
        while (low < high) {
            const middle = low + Math.floor((high - low) / 2)
            let probed = this.probe(middle)
            // No line starts between the middle and `high`: the line at `low` is the one to look at.
            if (!probed || probed[0] >= high) probed = this.probe(low)!
            if (probed[2] < hash) low = probed[1]
            else high = probed[0]
        }
        return low
    }

    /** The lines keyed by `hash`, and where they are: where they would be put when there are none. */
    run(hash: number): { start: number; end: number; lines: Line[] } {
        const start = this.lowerBound(hash)
        const lines: Line[] = []
        let end = start
        while (end < this.size) {
            const line = this.lineAt(end)
            if (this.hashOf(line.text) !== hash) break
            lines.push(line)
            end = line.end
        }
        return { start, end, lines }
    }

    /**
     * The bytes from `start` to `end`, a piece at a time, each piece good until the next one is
     * asked for (a write of each piece is awaited before the next, as `writeFile` does). A new
     * buffer a piece made the hash cache's save after a start from the snapshot, which copies
     * most of its 90 MB at 100,000 levels, that much memory outside V8's heap, for which V8
     * collected the whole heap (400 MB) during the watcher's first scan.
     */
    *copy(start: number, end: number): Generator<Buffer> {
        this.copyBuffer ??= Buffer.allocUnsafe(copyBytes)
        for (let position = start; position < end;) {
            const piece = this.copyBuffer.subarray(0, Math.min(copyBytes, end - position))
            const read = readSync(this.descriptor, piece, 0, piece.length, position)
            if (read === 0) throw new Error('the file ended before its size')
            position += read
            yield piece.subarray(0, read)
        }
    }
}
