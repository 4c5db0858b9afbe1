export type Order<T> = (a: T, b: T) => number

/** Where `item` goes in a list sorted by `order`, found by bisection: before everything it does not follow. */
export const insertionIndex = <T>(list: readonly T[], item: T, order: Order<T>) => {
    let low = 0
    let high = list.length
    while (low < high) {
        const middle = (low + high) >>> 1
        if (order(list[middle]!, item) < 0) low = middle + 1
        else high = middle
    }
    return low
}

/**
 * A list sorted by `order` (a total order: no two items compare equal) without `removed` (items
 * of the list) and with `added`, in one pass: a change of a few items costs a copy of the list,
 * not a sort of it. The list itself is kept when nothing changes.
 */
export const patchSorted = <T>(
    list: readonly T[],
    removed: readonly T[],
    added: readonly T[],
    order: Order<T>,
): readonly T[] => {
    if (removed.length === 0 && added.length === 0) return list
    const skipped = removed.map((item) => insertionIndex(list, item, order)).sort((a, b) => a - b)
    const incoming = [...added].sort(order)
    const patched: T[] = []
    let nextSkipped = 0
    let nextIncoming = 0
    for (let index = 0; index < list.length; index++) {
        if (skipped[nextSkipped] === index) {
            nextSkipped++
            continue
        }
        const item = list[index]!
        while (nextIncoming < incoming.length && order(incoming[nextIncoming]!, item) < 0)
            patched.push(incoming[nextIncoming++]!)
        patched.push(item)
    }
    while (nextIncoming < incoming.length) patched.push(incoming[nextIncoming++]!)
    return patched
}

/**
 * What turned `before` into `after`, two lists sorted by `order` (a total order): the items of
 * `before` not in `after` and those of `after` not in `before`, by identity. One walk of both
 * that compares references: two versions of a long list sharing all but a few items (an item's
 * comments after one more) cost a pass of pointer comparisons, not a set of every item.
 */
export const sortedChanges = <T>(before: readonly T[], after: readonly T[], order: Order<T>) => {
    const removed: T[] = []
    const added: T[] = []
    let inBefore = 0
    let inAfter = 0
    while (inBefore < before.length && inAfter < after.length) {
        const old = before[inBefore]!
        const now = after[inAfter]!
        if (old === now) {
            inBefore++
            inAfter++
            continue
        }
        const comparison = order(old, now)
        // Equal in order yet another record: the same place, read again (an edit).
        if (comparison <= 0) {
            removed.push(old)
            inBefore++
        }
        if (comparison >= 0) {
            added.push(now)
            inAfter++
        }
    }
    removed.push(...before.slice(inBefore))
    added.push(...after.slice(inAfter))
    return { removed, added }
}
