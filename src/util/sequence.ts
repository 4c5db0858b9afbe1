/** What a page of a list reads: its length, a slice of it, where an item is. An array is one; so is a result worked out as far as asked. */
export type Sequence<T> = {
    readonly length: number
    slice(start?: number, end?: number): T[]
    findIndex(matches: (item: T) => unknown): number
}
