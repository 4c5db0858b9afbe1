/**
 * Ascending lists of numbers laid end to end in one array, as a search index built on a worker
 * hands them over: three typed arrays move to the serving thread without a copy, where a `Map`
 * of a list each (half a million lists at 100,000 levels) would be sent and rebuilt one by one,
 * and hold less than lists kept with room to grow.
 */
export type FrozenLists = {
    /** The keys, ascending; absent when the keys are the numbers from 0 (word ids), each list's index. */
    keys?: Int32Array
    /** List `i` is `values` from `offsets[i]` to `offsets[i + 1]`. */
    offsets: Int32Array
    values: Int32Array
}

const empty = new Int32Array(0)

/** The index of `key`'s list, or -1 for a key without one. */
const listIndex = ({ keys, offsets }: FrozenLists, key: number) => {
    if (!keys) return key >= 0 && key < offsets.length - 1 ? key : -1
    let low = 0
    let high = keys.length - 1
    while (low <= high) {
        const middle = (low + high) >>> 1
        const at = keys[middle]!
        if (at < key) low = middle + 1
        else if (at > key) high = middle - 1
        else return middle
    }
    return -1
}

/** The list of `key` (empty for a key without one), a view into `lists`. */
export const frozenList = (lists: FrozenLists, key: number): Int32Array => {
    const at = listIndex(lists, key)
    return at < 0 ? empty : lists.values.subarray(lists.offsets[at]!, lists.offsets[at + 1]!)
}

/**
 * The lists of `keys`, in that order, laid end to end; `dense` when the keys are the numbers
 * from 0 to one below their count (a key without a list has an empty one).
 */
export const freezeLists = (
    keys: Int32Array,
    dense: boolean,
    listOf: (key: number) => Int32Array | number | undefined,
): FrozenLists => {
    const offsets = new Int32Array(keys.length + 1)
    let total = 0
    keys.forEach((key, at) => {
        const list = listOf(key)
        total += list === undefined ? 0 : typeof list === 'number' ? 1 : list.length
        offsets[at + 1] = total
    })
    const values = new Int32Array(total)
    keys.forEach((key, at) => {
        const list = listOf(key)
        if (typeof list === 'number') values[offsets[at]!] = list
        else if (list) values.set(list, offsets[at]!)
    })
    return dense ? { offsets, values } : { keys, offsets, values }
}

/** The buffers of the lists, to transfer. */
export const buffersOf = ({ keys, offsets, values }: FrozenLists) => [
    ...(keys ? [keys.buffer] : []),
    offsets.buffer,
    values.buffer,
]
