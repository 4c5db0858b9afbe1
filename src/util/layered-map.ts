const removed = Symbol('removed')

/**
 * Layers whose entries outnumber a layer above them by less than this are merged with it, so a
 * lookup passes through a few layers (log base 8 of the entries) and each entry is copied a few
 * times over all the versions that follow, not once per version.
 */
const mergeRatio = 8

/**
 * An immutable map from which a new version is made by a few changes, without copying it: a
 * version keeps its own changes as a layer over the one it came from. Snapshots of a hundred
 * thousand items that differ by one edit then share everything but that edit, and an older
 * version stays valid for whoever still holds it.
 */
export class LayeredMap<K, V> implements ReadonlyMap<K, V> {
    private constructor(
        /** This version's entries over `below`: a value, or `removed` for a key taken out. */
        private readonly own: ReadonlyMap<K, V | typeof removed>,
        private readonly below: LayeredMap<K, V> | undefined,
        readonly size: number,
    ) {}

    static of<K, V>(entries: Iterable<readonly [K, V]> = []): LayeredMap<K, V> {
        const own = new Map(entries)
        return new LayeredMap(own, undefined, own.size)
    }

    get(key: K): V | undefined {
        for (let layer: LayeredMap<K, V> | undefined = this; layer; layer = layer.below) {
            const value = layer.own.get(key)
            if (value !== undefined) return value === removed ? undefined : value
        }
        return undefined
    }

    has(key: K): boolean {
        return this.get(key) !== undefined
    }

    /**
     * A new version with `changes` applied: a value sets its key, `undefined` removes it. The
     * changes are handed over (the version may keep them as its layer): not to be changed after.
     */
    with(changes: ReadonlyMap<K, V | undefined>): LayeredMap<K, V> {
        if (changes.size === 0) return this
        // Over an empty map (a first snapshot) the changes are the whole map: nothing to look through or merge.
        if (!this.below && this.own.size === 0) {
            // Kept as they are when they remove nothing: a first catalog's 100,000 entries are not copied.
            let own = changes as ReadonlyMap<K, V>
            for (const value of changes.values())
                if (value === undefined) {
                    const set = new Map<K, V>()
                    for (const [key, value] of changes) if (value !== undefined) set.set(key, value)
                    own = set
                    break
                }
            return new LayeredMap(own, undefined, own.size)
        }
        const own = new Map<K, V | typeof removed>()
        let size = this.size
        for (const [key, value] of changes) {
            const present = this.has(key)
            if (value === undefined) {
                if (!present) continue
                own.set(key, removed)
                size--
            } else {
                own.set(key, value)
                if (!present) size++
            }
        }
        let top: LayeredMap<K, V> = new LayeredMap(own, this, size)
        while (top.below && top.own.size * mergeRatio >= top.below.own.size)
            top = top.mergedWithBelow()
        return top
    }

    /** The entries in the order they were first set, the bottom layer's first. */
    *entries(): MapIterator<[K, V]> {
        for (const [key, value] of this.flat()) if (value !== removed) yield [key, value]
    }

    *keys(): MapIterator<K> {
        for (const [key] of this.entries()) yield key
    }

    *values(): MapIterator<V> {
        for (const [, value] of this.entries()) yield value
    }

    [Symbol.iterator](): MapIterator<[K, V]> {
        return this.entries()
    }

    forEach(callback: (value: V, key: K, map: ReadonlyMap<K, V>) => void, thisArg?: unknown): void {
        for (const [key, value] of this.entries()) callback.call(thisArg, value, key, this)
    }

    /** One layer with this one's entries over the one below; the bottom layer keeps no removals. */
    private mergedWithBelow(): LayeredMap<K, V> {
        const below = this.below!
        const own = new Map(below.own)
        for (const [key, value] of this.own) {
            if (value === removed && !below.below) own.delete(key)
            else own.set(key, value)
        }
        return new LayeredMap(own, below.below, this.size)
    }

    /** Every layer merged into one map, for the rare walks over all entries. */
    private flat(): ReadonlyMap<K, V | typeof removed> {
        if (!this.below) return this.own
        let flat: LayeredMap<K, V> = this
        while (flat.below) flat = flat.mergedWithBelow()
        return flat.own
    }
}
