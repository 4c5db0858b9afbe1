import { LRUCache } from 'lru-cache'

/**
 * Caches of answers, one per owner (a snapshot, a renderer), bounded in bytes and made on first
 * use: an owner that is gone (a snapshot replaced) takes its cache with it.
 */
export const cachesPer = <Owner extends object, Answer extends object>(
    budgetBytes: number,
    bytesOf: (answer: Answer) => number,
) => {
    const caches = new WeakMap<Owner, LRUCache<string, Answer>>()
    return (owner: Owner) => {
        let cache = caches.get(owner)
        if (!cache) {
            cache = new LRUCache({ maxSize: budgetBytes, sizeCalculation: bytesOf })
            caches.set(owner, cache)
        }
        return cache
    }
}
