/**
 * What replicas behind one load balancer must share that is not content: upload keys, rooms,
 * write rates, each player's last write, and the signal that a replica pushed. Values are text
 * (JSON, mostly); every key may expire. One machine keeps them in process (MemoryState); replicas
 * keep them in Redis (RedisState), so any replica answers any request.
 */
export interface SharedState {
    /** Where the state lives, for the terminal: `in process`, or the Redis address without its password. */
    readonly description: string
    /** Whether other processes share it (Redis): then replicas wait for each other's writes. */
    readonly acrossReplicas: boolean
    get(key: string): Promise<string | undefined>
    getMany(keys: string[]): Promise<(string | undefined)[]>
    /** Sets a key that expires after `ttlMs`; with `ifAbsent`, only if it is not there, saying whether it was set. */
    set(
        key: string,
        value: string,
        ttlMs: number,
        options?: { ifAbsent?: boolean },
    ): Promise<boolean>
    /** The value, removed in the same step: of two replicas taking one key, one gets it. */
    take(key: string): Promise<string | undefined>
    delete(keys: string[]): Promise<void>

    /** Adds (or moves) a member of a sorted index; the whole index expires `ttlMs` after its last addition. */
    indexAdd(index: string, member: string, score: number, ttlMs: number): Promise<void>
    indexRemove(index: string, members: string[]): Promise<void>
    /** Removes the members scored `maxScore` or less (expired ones, with expiry times as scores). */
    indexRemoveUpTo(index: string, maxScore: number): Promise<void>
    /** Members by score, lowest first (or highest first). */
    indexRange(index: string, order?: 'ascending' | 'descending'): Promise<IndexEntry[]>
    indexSize(index: string): Promise<number>

    /**
     * Takes one token from each bucket, all or none: refilled at `capacity` per `perSeconds`
     * since it was last asked. When one holds less than a token, nothing is taken and that one
     * is named, with what it holds.
     */
    takeTokens(buckets: TokenBucket[], now: number): Promise<BlockedBucket | undefined>

    /** Tells every replica (this one included) a message on a channel. */
    publish(channel: string, message: string): Promise<void>
    /**
     * Hears the messages of a channel until closed. A lost connection is picked up again by
     * itself; as what was said meanwhile is lost, the listener hears an empty message then.
     */
    subscribe(channel: string, listener: (message: string) => void): Promise<void>
    close(): Promise<void>
}

export type IndexEntry = { member: string; score: number }

export type TokenBucket = { key: string; capacity: number; perSeconds: number }

export type BlockedBucket = { index: number; tokens: number }

/** A bucket refilled from `tokens` at `at`, as of `now` (a clock running behind another replica's never drains it). */
export const refilled = (
    bucket: TokenBucket,
    stored: { tokens: number; at: number } | undefined,
    now: number,
) =>
    stored
        ? Math.min(
              bucket.capacity,
              stored.tokens +
                  (Math.max(0, now - stored.at) / 1000 / bucket.perSeconds) * bucket.capacity,
          )
        : bucket.capacity

/** How long a bucket holding `tokens` takes to fill up, after which it holds nothing worth keeping. */
export const refillMs = (bucket: TokenBucket, tokens: number) =>
    Math.ceil(((bucket.capacity - tokens) / bucket.capacity) * bucket.perSeconds * 1000)
