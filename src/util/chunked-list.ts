import {
    firstIndexWhere,
    insertionIndex,
    joined,
    patchSorted,
    placeOf,
    type Order,
} from './sorted-list.js'

/** Items a chunk is cut to when a list is made; a chunk past twice as many is cut in two. */
const chunkSize = 512

/** Changes past which a version is made as a whole, by a merge into one array: a first snapshot adds every item. */
const changesOneByOne = chunkSize / 8

/** Items cut into chunks of about `chunkSize`, as even as they go. */
const chunksOf = <T>(items: readonly T[]): (readonly T[])[] => {
    const count = Math.ceil(items.length / chunkSize)
    const chunks: (readonly T[])[] = []
    for (let at = 0; at < count; at++)
        chunks.push(
            items.slice(
                Math.floor((at * items.length) / count),
                Math.floor(((at + 1) * items.length) / count),
            ),
        )
    return chunks
}

/** The index of the first chunk whose last item `isPast` holds (the count when none). */
const chunkWhere = <T>(chunks: readonly (readonly T[])[], isPast: (last: T) => boolean) =>
    firstIndexWhere(chunks, (chunk) => isPast(chunk[chunk.length - 1]!))

/**
 * An immutable list sorted by an order, kept as chunks of a few hundred items, from which a
 * version with a few items in or out is made by copying the chunks they touch and the list of
 * chunks: a play into a folder of 100,000 replays used to copy the type's list and the level's
 * list of replays whole, twice each (1-5 ms a list, and 3 MB to collect), on every write.
 * Pages, sections and counts read it as it is; a search or a sort reads it as one array, made
 * on first use and kept.
 */
export class ChunkedList<T> implements Iterable<T> {
    readonly length: number
    private array: readonly T[] | undefined
    /** Where each chunk starts in the list, worked out on the first read by position. */
    private starts: Int32Array | undefined

    private constructor(private readonly chunks: readonly (readonly T[])[]) {
        this.length = chunks.reduce((sum, chunk) => sum + chunk.length, 0)
    }

    /** A list of items already in their order (not copied into one array again: `toArray` gives them back). */
    static of<T>(sorted: readonly T[] = []): ChunkedList<T> {
        const list = new ChunkedList(chunksOf(sorted))
        list.array = sorted
        return list
    }

    *[Symbol.iterator](): Iterator<T> {
        for (const chunk of this.chunks) yield* chunk
    }

    /** The whole list as one array, made once. */
    toArray(): readonly T[] {
        return (this.array ??= joined(this.chunks))
    }

    at(position: number): T | undefined {
        if (position < 0 || position >= this.length) return undefined
        const chunk = this.chunkAt(position)
        return this.chunks[chunk]![position - this.starts![chunk]!]
    }

    slice(start = 0, end = this.length): T[] {
        const from = Math.max(0, start < 0 ? this.length + start : start)
        const to = Math.min(this.length, end < 0 ? this.length + end : end)
        if (from >= to) return []
        if (this.array) return this.array.slice(from, to)
        const items: T[] = []
        for (let chunk = this.chunkAt(from); items.length < to - from; chunk++) {
            const offset = this.starts![chunk]!
            items.push(...this.chunks[chunk]!.slice(Math.max(0, from - offset), to - offset))
        }
        return items
    }

    findIndex(matches: (item: T, position: number) => unknown): number {
        let position = 0
        for (const chunk of this.chunks)
            for (const item of chunk) {
                if (matches(item, position)) return position
                position++
            }
        return -1
    }

    /**
     * This list without `removed` (items of it) and with `added`, in `order` (a total order: no
     * two items compare equal). Each goes to the chunk it falls in by the chunks' last items, which
     * is where it belongs whatever else changes in the same version. This list itself is kept
     * when nothing changes.
     */
    patched(removed: readonly T[], added: readonly T[], order: Order<T>): ChunkedList<T> {
        if (removed.length === 0 && added.length === 0) return this
        if (removed.length + added.length > changesOneByOne)
            return ChunkedList.of(patchSorted(this.toArray(), removed, added, order))
        const touched = new Map<number, T[]>()
        const copyOf = (chunk: number) => {
            let copy = touched.get(chunk)
            if (!copy) touched.set(chunk, (copy = [...(this.chunks[chunk] ?? [])]))
            return copy
        }
        // Out before in: an edited record compares equal to the one it replaces.
        for (const item of removed) {
            const copy = copyOf(chunkWhere(this.chunks, (last) => order(last, item) >= 0))
            const at = insertionIndex(copy, item, order)
            if (copy[at] === item) copy.splice(at, 1)
        }
        const lastChunk = Math.max(0, this.chunks.length - 1)
        for (const item of added) {
            const chunk = chunkWhere(this.chunks, (last) => order(item, last) < 0)
            const copy = copyOf(Math.min(chunk, lastChunk))
            copy.splice(placeOf(copy, item, order), 0, item)
        }
        const chunks: (readonly T[])[] = []
        for (let chunk = 0; chunk <= lastChunk; chunk++) {
            const copy = touched.get(chunk)
            if (!copy) chunks.push(this.chunks[chunk]!)
            else if (copy.length > 2 * chunkSize) chunks.push(...chunksOf(copy))
            else if (copy.length) chunks.push(copy)
        }
        return new ChunkedList(chunks)
    }

    /** The chunk holding a position (within the list). */
    private chunkAt(position: number) {
        if (!this.starts) {
            this.starts = new Int32Array(this.chunks.length)
            let start = 0
            this.chunks.forEach((chunk, at) => {
                this.starts![at] = start
                start += chunk.length
            })
        }
        return firstIndexWhere(this.starts, (start) => start > position) - 1
    }
}
