/**
 * Ascending lists of numbers by list id, only ever appended to. Ids are handed out 0, 1, 2… (a
 * word's id), so a list is found by indexing typed arrays, not by hashing: a quick search reads
 * the lists of thousands of words (those holding `le`), and a `Map` of them spent much of its
 * time looking them up. Most lists hold one number (the items holding the number in a level's
 * name, say), kept in `lasts` alone; a longer list gets an array of its own. Every array grows by
 * doubling as numbers come, never sized ahead: an index is built in slices while the first scan
 * serves requests, and arrays made at once for 100,000 items held the loop longer.
 */
export class PostingLists {
    /** Each list's last number: the whole list while its length is 1. */
    private lasts = new Int32Array(1024)
    private lengths = new Int32Array(1024)
    /** The numbers of each list of two or more, with room beyond its length to grow. */
    private readonly longer: (Int32Array | undefined)[] = []

    /** Appends `value`, which is at least the last value appended to list `id`; a repeat is kept once. */
    add(id: number, value: number) {
        if (id >= this.lengths.length) this.grow(id)
        const length = this.lengths[id]!
        const last = this.lasts[id]!
        if (length > 0 && last === value) return
        this.lasts[id] = value
        this.lengths[id] = length + 1
        if (length === 0) return
        if (length === 1) {
            while (this.longer.length < id) this.longer.push(undefined)
            this.longer[id] = Int32Array.of(last, value, 0, 0)
            return
        }
        let values = this.longer[id]!
        if (length === values.length) {
            values = new Int32Array(2 * length)
            values.set(this.longer[id]!)
            this.longer[id] = values
        }
        values[length] = value
    }

    get(id: number): Int32Array {
        const length = this.lengthOf(id)
        if (length === 0) return noValues
        return length === 1 ? Int32Array.of(this.lasts[id]!) : this.longer[id]!.subarray(0, length)
    }

    /** Like `get`, without making an array for a list of one number: the array it gives is only good until the next call. */
    read(id: number): Int32Array {
        const length = this.lengthOf(id)
        if (length === 0) return noValues
        if (length > 1) return this.longer[id]!.subarray(0, length)
        one[0] = this.lasts[id]!
        return one
    }

    private lengthOf(id: number) {
        return id < this.lengths.length ? this.lengths[id]! : 0
    }

    /** Doubles the arrays until list `id` has its place. */
    private grow(id: number) {
        let size = this.lengths.length
        while (size <= id) size *= 2
        const lasts = new Int32Array(size)
        lasts.set(this.lasts)
        const lengths = new Int32Array(size)
        lengths.set(this.lengths)
        this.lasts = lasts
        this.lengths = lengths
    }
}

/** Posting lists by any integer key (a trigram's), each key given the next list id when first seen. */
export class KeyedPostingLists {
    private readonly ids = new Map<number, number>()
    private readonly lists = new PostingLists()

    add(key: number, value: number) {
        let id = this.ids.get(key)
        if (id === undefined) {
            id = this.ids.size
            this.ids.set(key, id)
        }
        this.lists.add(id, value)
    }

    get(key: number): Int32Array {
        const id = this.ids.get(key)
        return id === undefined ? noValues : this.lists.get(id)
    }
}

const noValues = new Int32Array(0)
const one = new Int32Array(1)
