/**
 * Sets of positions in a list as bits, 32 a word: a search of a word in every title marks a
 * hundred thousand positions in about as many stores, and sets are intersected a word at a time.
 */
export type PositionSet = Uint32Array

export const wordsFor = (positions: number) => (positions + 31) >>> 5

/** Marks the positions of `slots` (by `positionOf`, -1 for a slot the list does not hold). */
export const addSlots = (set: PositionSet, slots: Int32Array, positionOf: Int32Array) => {
    for (let at = 0; at < slots.length; at++) {
        const slot = slots[at]!
        const position = slot < positionOf.length ? positionOf[slot]! : -1
        if (position >= 0) set[position >>> 5]! |= 1 << (position & 31)
    }
}

/** Adds to `set` what `other` holds. */
export const unionInto = (set: PositionSet, other: PositionSet) => {
    for (let word = 0; word < set.length; word++) set[word]! |= other[word]!
}

/** Keeps in `set` only what `other` holds too. */
export const intersectInto = (set: PositionSet, other: PositionSet) => {
    for (let word = 0; word < set.length; word++) set[word]! &= other[word]!
}

/** Marks every position below `count`. */
export const fillAll = (set: PositionSet, count: number) => {
    set.fill(0xffffffff)
    if (count & 31) set[set.length - 1] = (1 << (count & 31)) - 1
}

/**
 * Writes the positions of `set` ascending into `into` as `position << 1 | flag`, the flag set for
 * a position `flagged` holds too, and answers how many it wrote.
 */
export const entriesOf = (set: PositionSet, flagged: PositionSet, into: Int32Array) => {
    let count = 0
    for (let word = 0; word < set.length; word++) {
        let bits = set[word]!
        if (bits === 0) continue
        const flags = flagged[word]!
        // The word's first entry: its position, shifted for the flag.
        const first = word << 6
        // A broad search holds whole words of positions: written without finding each bit (a
        // third less time for a search holding all of 100,000 items).
        if (bits === 0xffffffff)
            for (let bit = 0; bit < 32; bit++)
                into[count++] = first | (bit << 1) | ((flags >>> bit) & 1)
        else
            while (bits !== 0) {
                const bit = 31 - Math.clz32(bits & -bits)
                into[count++] = first | (bit << 1) | ((flags >>> bit) & 1)
                bits &= bits - 1
            }
    }
    return count
}

/** Keeps, in order, the first `count` entries whose position passes `keep`, and answers how many are left. */
export const keepHolding = (
    entries: Int32Array,
    count: number,
    keep: (position: number) => boolean,
) => {
    let kept = 0
    for (let at = 0; at < count; at++) if (keep(entries[at]! >> 1)) entries[kept++] = entries[at]!
    return kept
}
