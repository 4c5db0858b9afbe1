import { EventEmitter } from 'node:events'
import {
    refilled,
    refillMs,
    type BlockedBucket,
    type IndexEntry,
    type SharedState,
    type TokenBucket,
} from './shared-state.js'

type Expiring<T> = { value: T; expiresAt: number }

/** How often expired entries nobody asked for again are dropped, so they do not pile up. */
const sweepEveryMs = 60_000

/**
 * The shared state of one machine, in this process: the default, with no other service to run.
 * Every step is synchronous underneath, so each is as atomic as Redis makes it.
 */
export class MemoryState implements SharedState {
    readonly description = 'in process'
    readonly acrossReplicas = false
    private readonly values = new Map<string, Expiring<string>>()
    private readonly indexes = new Map<string, Expiring<Map<string, number>>>()
    private readonly buckets = new Map<string, Expiring<{ tokens: number; at: number }>>()
    private readonly channels = new EventEmitter()
    private readonly sweeper = setInterval(() => this.sweep(Date.now()), sweepEveryMs).unref()

    constructor() {
        this.channels.setMaxListeners(0)
    }

    async get(key: string) {
        return live(this.values, key)?.value
    }

    async getMany(keys: string[]) {
        return keys.map((key) => live(this.values, key)?.value)
    }

    async set(key: string, value: string, ttlMs: number, options: { ifAbsent?: boolean } = {}) {
        if (options.ifAbsent && live(this.values, key)) return false
        this.values.set(key, { value, expiresAt: Date.now() + ttlMs })
        return true
    }

    async take(key: string) {
        const entry = live(this.values, key)
        this.values.delete(key)
        return entry?.value
    }

    async delete(keys: string[]) {
        for (const key of keys) this.values.delete(key)
    }

    async indexAdd(index: string, member: string, score: number, ttlMs: number) {
        const entry = live(this.indexes, index) ?? { value: new Map(), expiresAt: 0 }
        entry.value.set(member, score)
        entry.expiresAt = Date.now() + ttlMs
        this.indexes.set(index, entry)
    }

    async indexRemove(index: string, members: string[]) {
        const entry = live(this.indexes, index)
        for (const member of members) entry?.value.delete(member)
    }

    async indexRemoveUpTo(index: string, maxScore: number) {
        const entry = live(this.indexes, index)
        for (const [member, score] of entry?.value ?? [])
            if (score <= maxScore) entry!.value.delete(member)
    }

    async indexRange(index: string, order: 'ascending' | 'descending' = 'ascending') {
        const entries: IndexEntry[] = [...(live(this.indexes, index)?.value ?? [])].map(
            ([member, score]) => ({ member, score }),
        )
        // Redis orders equal scores by member; so does this.
        entries.sort((a, b) => a.score - b.score || (a.member < b.member ? -1 : 1))
        return order === 'ascending' ? entries : entries.reverse()
    }

    async indexSize(index: string) {
        return live(this.indexes, index)?.value.size ?? 0
    }

    async takeTokens(buckets: TokenBucket[], now: number): Promise<BlockedBucket | undefined> {
        const tokens = buckets.map((bucket) =>
            refilled(bucket, live(this.buckets, bucket.key)?.value, now),
        )
        const blocked = tokens.findIndex((held) => held < 1)
        if (blocked >= 0) return { index: blocked, tokens: tokens[blocked]! }
        buckets.forEach((bucket, index) => {
            const left = tokens[index]! - 1
            this.buckets.set(bucket.key, {
                value: { tokens: left, at: now },
                expiresAt: Date.now() + refillMs(bucket, left),
            })
        })
        return undefined
    }

    async publish(channel: string, message: string) {
        this.channels.emit(channel, message)
    }

    async subscribe(channel: string, listener: (message: string) => void) {
        this.channels.on(channel, listener)
    }

    async close() {
        clearInterval(this.sweeper)
        this.channels.removeAllListeners()
    }

    private sweep(now: number) {
        for (const map of [this.values, this.indexes, this.buckets] as Map<
            string,
            Expiring<unknown>
        >[])
            for (const [key, entry] of map) if (entry.expiresAt <= now) map.delete(key)
    }
}

/** The entry at a key if it has not expired; an expired one is dropped on the way. */
const live = <T>(map: Map<string, Expiring<T>>, key: string) => {
    const entry = map.get(key)
    if (entry && entry.expiresAt <= Date.now()) {
        map.delete(key)
        return undefined
    }
    return entry
}
