/**
 * A first-in, first-out list whose front is taken without moving the rest: at a hundred thousand
 * entries, taking them one by one with `shift` would be quadratic.
 */
export class Fifo<T> {
    #items: T[] = []
    #from = 0

    get size() {
        return this.#items.length - this.#from
    }

    push(item: T) {
        this.#items.push(item)
    }

    /** The entry at the front, taken; undefined when there is none. */
    shift(): T | undefined {
        if (this.#from === this.#items.length) return undefined
        const item = this.#items[this.#from++]!
        if (this.#from === this.#items.length) {
            this.#items = []
            this.#from = 0
        } else if (this.#from >= 4096 && this.#from * 2 >= this.#items.length) {
            this.#items = this.#items.slice(this.#from)
            this.#from = 0
        }
        return item
    }
}
