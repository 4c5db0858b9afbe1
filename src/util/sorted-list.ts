export type Order<T> = (a: T, b: T) => number

/** The first index of a sorted list from which `isPast` holds, found by bisection. */
export const firstIndexWhere = <T>(list: ArrayLike<T>, isPast: (entry: T) => boolean) => {
    let low = 0
    let high = list.length
    while (low < high) {
        const middle = (low + high) >>> 1
        if (isPast(list[middle]!)) high = middle
        else low = middle + 1
    }
    return low
}

/** Where `item` goes in a list sorted by `order`, found by bisection: before everything it does not follow. */
export const insertionIndex = <T>(list: readonly T[], item: T, order: Order<T>) =>
    firstIndexWhere(list, (entry) => order(entry, item) >= 0)

/** Where `item` goes in a list sorted by `order`: after everything it does not precede. */
export const placeOf = <T>(list: readonly T[], item: T, order: Order<T>) =>
    firstIndexWhere(list, (entry) => order(item, entry) < 0)

/** Arguments spread into one call at most: the engine limits how many a call takes. */
const argumentsAtOnce = 4096

/** Arrays joined into one by the engine's own copy (`concat`), in two steps when there are very many. */
export const joined = <T>(runs: readonly (readonly T[])[]): T[] => {
    if (runs.length <= argumentsAtOnce) return ([] as T[]).concat(...runs)
    const pieces: T[][] = []
    for (let start = 0; start < runs.length; start += argumentsAtOnce)
        pieces.push(joined(runs.slice(start, start + argumentsAtOnce)))
    return joined(pieces)
}

/**
 * A list sorted by `order` (a total order: no two items compare equal) without `removed` (items
 * of the list) and with `added`: each found by bisection, and the runs of the list between them
 * copied whole, so a change of a few items in a hundred thousand costs a copy of the list (the
 * engine's own copy of a packed array), not a visit of each item. The list itself is kept when
 * nothing changes.
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
    const places = incoming.map((item) => placeOf(list, item, order))
    const runs: (readonly T[])[] = []
    let from = 0
    let nextSkipped = 0
    let nextIncoming = 0
    while (nextSkipped < skipped.length || nextIncoming < incoming.length) {
        // What comes first: items going in before list[at], then list[at] skipped.
        const at = Math.min(skipped[nextSkipped] ?? Infinity, places[nextIncoming] ?? Infinity)
        runs.push(list.slice(from, at))
        const start = nextIncoming
        while (places[nextIncoming] === at) nextIncoming++
        if (nextIncoming > start) runs.push(incoming.slice(start, nextIncoming))
        from = at
        while (skipped[nextSkipped] === at) {
            nextSkipped++
            from = at + 1
        }
    }
    runs.push(list.slice(from))
    return joined(runs)
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
    // The same list (an item's record edited, its comments kept): nothing to walk.
    if (before === after) return { removed, added }
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
