import { randomInt } from 'node:crypto'
import type { ServedFile } from '../content/resources.js'
import { TurnSlices } from '../util/turn-slices.js'

/** Marks a free place of the table: no string's key is negative. */
const free = -1

/**
 * Where this process's keys begin: players' uploads are resources too, and a hash's place must
 * not be one they can aim for (many uploads ground to one place would make every look-up there slow).
 */
const keySeed = randomInt(2 ** 31)

/** The key of a hash: its first eight characters mixed into a non-negative 31-bit integer (any string has one). */
const keyOf = (hash: string) => {
    let key = keySeed
    for (let at = 0; at < 8 && at < hash.length; at++)
        key = Math.imul(key ^ hash.charCodeAt(at), 0x01000193)
    return key >>> 1
}

/**
 * Served files by hash, only ever added to. A `Map` of the 400,000 files of 100,000 levels took
 * most of a second of a warm start's first catalog to fill (under load; about 0.5 µs a file,
 * growing and rehashing its entries); an open-addressing table of integer keys (the hashes are
 * random, so their first characters spread them) fills in less than half that.
 */
export class ResourceTable {
    private keys = new Int32Array(1024).fill(free)
    private files: (ServedFile | undefined)[] = new Array<ServedFile | undefined>(1024)
    private count = 0
    /**
     * Files handed over but not in the table yet, oldest first: each is put in before any
     * look-up, so whoever asks first finds exactly what an immediate fill would have given.
     */
    private pending: Iterator<ServedFile>[] = []

    get size() {
        this.fillAll()
        return this.count
    }

    get(hash: string): ServedFile | undefined {
        this.fillAll()
        const key = keyOf(hash)
        const mask = this.keys.length - 1
        for (let at = key & mask; ; at = (at + 1) & mask) {
            const held = this.keys[at]!
            if (held === free) return undefined
            if (held === key && this.files[at]!.hash === hash) return this.files[at]
        }
    }

    /**
     * Keeps these files under their hashes, later: at the next look-up, or a slice at a time
     * (`fillInSlices`). A file of a hash already held takes its place (the bytes are the same),
     * in the order they were handed over. The 400,000 files of a first catalog at 100,000 levels
     * then go in after the listening line rather than before it.
     */
    addLater(files: Iterable<ServedFile>) {
        this.pending.push(files[Symbol.iterator]())
    }

    /** Puts in what was handed over, holding the event loop a slice of time at a time; a look-up meanwhile puts in the rest at once. */
    async fillInSlices(slices = new TurnSlices()) {
        for (let files = this.pending[0]; files; files = this.pending[0]) {
            for (let next = files.next(); !next.done; next = files.next()) {
                this.add(next.value)
                if (slices.due()) await slices.pause()
            }
            // A look-up during the pause put in the rest, this one included.
            if (this.pending[0] === files) this.pending.shift()
        }
    }

    private fillAll() {
        for (const files of this.pending)
            for (let next = files.next(); !next.done; next = files.next()) this.add(next.value)
        this.pending = []
    }

    private add(file: ServedFile) {
        // At most half full, so that a search for a hash not held ends soon.
        if (2 * (this.count + 1) > this.keys.length) this.grow()
        this.put(keyOf(file.hash), file)
    }

    private put(key: number, file: ServedFile) {
        const mask = this.keys.length - 1
        for (let at = key & mask; ; at = (at + 1) & mask) {
            const held = this.keys[at]!
            if (held === free) {
                this.keys[at] = key
                this.files[at] = file
                this.count++
                return
            }
            if (held === key && this.files[at]!.hash === file.hash) {
                this.files[at] = file
                return
            }
        }
    }

    /**
     * Makes room for `count` more files now: the first catalog's 400,000 files, put in a slice
     * at a time after the listening line, doubled the table as they came, and its last rehash
     * held the loop 26 ms in one step.
     */
    reserve(count: number) {
        let places = this.keys.length
        while (2 * (this.count + count) > places) places *= 2
        if (places > this.keys.length) this.rehash(places)
    }

    private grow() {
        this.rehash(this.keys.length * 2)
    }

    private rehash(places: number) {
        const { keys, files } = this
        this.keys = new Int32Array(places).fill(free)
        this.files = new Array<ServedFile | undefined>(places)
        this.count = 0
        for (let at = 0; at < keys.length; at++)
            if (keys[at] !== free) this.put(keys[at]!, files[at]!)
    }
}
