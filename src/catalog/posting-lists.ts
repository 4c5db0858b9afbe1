import { freezeLists, frozenList, type FrozenLists } from './frozen-lists.js'

/** A list of numbers kept ascending, with room beyond `length` to grow. */
type Growing = { values: Int32Array; length: number }

const noValues = new Int32Array(0)
const one = new Int32Array(1)

/**
 * Ascending lists of numbers by key, only ever appended to. Many lists of an index hold one
 * number (the items holding the number in a level's name, say), kept as that number rather than
 * as an array. Lists may start from frozen ones (an index built on a worker): a list appended to
 * is copied out of them on its first append, so a reload's few items touch few lists.
 */
export class PostingLists {
    private readonly lists = new Map<number, Growing | number>()

    constructor(private readonly base?: FrozenLists) {}

    /** Appends `value`, which is at least the last value appended under `key`; a repeat is kept once. */
    add(key: number, value: number) {
        let list = this.lists.get(key)
        if (list === undefined && this.base) {
            const frozen = frozenList(this.base, key)
            if (frozen.length) {
                if (frozen[frozen.length - 1] === value) return
                const values = new Int32Array(Math.max(4, 2 * frozen.length))
                values.set(frozen)
                list = { values, length: frozen.length }
                this.lists.set(key, list)
            }
        }
        if (list === undefined) this.lists.set(key, value)
        else if (typeof list === 'number') {
            if (list !== value)
                this.lists.set(key, { values: Int32Array.of(list, value, 0, 0), length: 2 })
        } else if (list.values[list.length - 1] !== value) {
            if (list.length === list.values.length) {
                const grown = new Int32Array(list.length * 2)
                grown.set(list.values)
                list.values = grown
            }
            list.values[list.length++] = value
        }
    }

    get(key: number): Int32Array {
        const list = this.lists.get(key)
        if (list === undefined) return this.base ? frozenList(this.base, key) : noValues
        return typeof list === 'number' ? Int32Array.of(list) : list.values.subarray(0, list.length)
    }

    /** Like `get`, without making an array for a list of one number: the array it gives is only good until the next call. */
    read(key: number): Int32Array {
        const list = this.lists.get(key)
        if (list === undefined) return this.base ? frozenList(this.base, key) : noValues
        if (typeof list !== 'number') return list.values.subarray(0, list.length)
        one[0] = list
        return one
    }

    /**
     * The lists laid end to end (of lists that started from none): by key from 0 to `count - 1`
     * when given (word ids), else by their keys in ascending order.
     */
    freeze(count?: number): FrozenLists {
        const keys =
            count === undefined
                ? Int32Array.from(this.lists.keys()).sort()
                : Int32Array.from({ length: count }, (_, at) => at)
        return freezeLists(keys, count !== undefined, (key) => {
            const list = this.lists.get(key)
            return list === undefined || typeof list === 'number'
                ? list
                : list.values.subarray(0, list.length)
        })
    }
}
