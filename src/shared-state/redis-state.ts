import { Redis } from 'ioredis'
import { Refusal } from '../util/refusal.js'
import type { BlockedBucket, IndexEntry, SharedState, TokenBucket } from './shared-state.js'

/** Every key and channel of Shelf's, so a Redis shared with other programs stays tidy. */
const prefix = 'shelf:'

/** A Redis that does not answer within this is taken as gone: the request is refused, not held. */
const commandTimeoutMs = 2_000

/** How long a client is told to wait before trying again while Redis is away. */
const retryAfterSeconds = 2

/**
 * `takeTokens` in one step on the server: KEYS are the buckets, ARGV `now` then each bucket's
 * capacity and seconds. Numbers go back as text: Redis would cut a Lua number to an integer.
 */
const takeTokensScript = `
local now = tonumber(ARGV[1])
local held = {}
for i, key in ipairs(KEYS) do
    local capacity, per = tonumber(ARGV[2 * i]), tonumber(ARGV[2 * i + 1])
    local stored = redis.call('HMGET', key, 'tokens', 'at')
    local tokens = capacity
    if stored[1] then
        tokens = math.min(capacity, tonumber(stored[1]) + math.max(0, now - tonumber(stored[2])) / 1000 / per * capacity)
    end
    if tokens < 1 then return { tostring(i - 1), tostring(tokens) } end
    held[i] = tokens
end
for i, key in ipairs(KEYS) do
    local capacity, per = tonumber(ARGV[2 * i]), tonumber(ARGV[2 * i + 1])
    local left = held[i] - 1
    redis.call('HSET', key, 'tokens', tostring(left), 'at', tostring(now))
    redis.call('PEXPIRE', key, math.ceil((capacity - left) / capacity * per * 1000) + 1)
end
return false
`

/**
 * The shared state of replicas, in Redis (or Valkey), through ioredis. A command is never queued
 * while Redis is away: it fails at once as a `unavailable` refusal (503), saying so, and the
 * client reconnects by itself; reads of content never wait on Redis.
 */
export class RedisState implements SharedState {
    readonly description: string
    readonly acrossReplicas = true
    private readonly subscriber: Redis
    /** The connections (commands, signals) lost now: one line when the first goes, one when the last is back. */
    private readonly away = new Set<string>()

    private constructor(
        private readonly redis: Redis,
        address: string,
    ) {
        this.description = `Redis at ${address}`
        this.subscriber = redis.duplicate()
        for (const [connection, role] of [
            [redis, 'commands'],
            [this.subscriber, 'signals'],
        ] as const) {
            connection.on('error', (error: Error) => this.lost(role, error))
            connection.on('ready', () => this.back(role))
        }
    }

    /** Connects, or refuses to start saying why: a replica without its shared state must not serve writes. */
    static async open(url: string) {
        const address = withoutPassword(url)
        const redis = new Redis(url, {
            lazyConnect: true,
            enableOfflineQueue: false,
            maxRetriesPerRequest: 0,
            commandTimeout: commandTimeoutMs,
            keyPrefix: prefix,
        })
        redis.on('error', () => {})
        try {
            await redis.connect()
        } catch (error) {
            redis.disconnect()
            throw new Error(
                `cannot reach the shared state at ${address} (--redis): ${(error as Error).message}; start redis-server there, or leave --redis out on a single machine`,
                { cause: error },
            )
        }
        const state = new RedisState(redis, address)
        await state.subscriber.connect()
        return state
    }

    get(key: string) {
        return this.command(async () => (await this.redis.get(key)) ?? undefined)
    }

    getMany(keys: string[]) {
        if (!keys.length) return Promise.resolve([])
        return this.command(async () =>
            (await this.redis.mget(keys)).map((value) => value ?? undefined),
        )
    }

    set(key: string, value: string, ttlMs: number, options: { ifAbsent?: boolean } = {}) {
        return this.command(async () => {
            const ttl = Math.max(1, Math.ceil(ttlMs))
            const done = options.ifAbsent
                ? await this.redis.set(key, value, 'PX', ttl, 'NX')
                : await this.redis.set(key, value, 'PX', ttl)
            return done === 'OK'
        })
    }

    take(key: string) {
        return this.command(async () => (await this.redis.getdel(key)) ?? undefined)
    }

    async delete(keys: string[]) {
        if (keys.length) await this.command(() => this.redis.del(keys))
    }

    async indexAdd(index: string, member: string, score: number, ttlMs: number) {
        await this.command(() =>
            this.redis
                .multi()
                .zadd(index, score, member)
                .pexpire(index, Math.max(1, Math.ceil(ttlMs)))
                .exec(),
        )
    }

    async indexRemove(index: string, members: string[]) {
        if (members.length) await this.command(() => this.redis.zrem(index, ...members))
    }

    async indexRemoveUpTo(index: string, maxScore: number) {
        await this.command(() => this.redis.zremrangebyscore(index, '-inf', String(maxScore)))
    }

    indexRange(index: string, order: 'ascending' | 'descending' = 'ascending') {
        return this.command(async () => {
            const flat =
                order === 'ascending'
                    ? await this.redis.zrange(index, '0', '-1', 'WITHSCORES')
                    : await this.redis.zrevrange(index, 0, -1, 'WITHSCORES')
            const entries: IndexEntry[] = []
            for (let at = 0; at < flat.length; at += 2)
                entries.push({ member: flat[at]!, score: Number(flat[at + 1]) })
            return entries
        })
    }

    indexSize(index: string) {
        return this.command(() => this.redis.zcard(index))
    }

    takeTokens(buckets: TokenBucket[], now: number) {
        return this.command(async (): Promise<BlockedBucket | undefined> => {
            const blocked = (await this.redis.eval(
                takeTokensScript,
                buckets.length,
                ...buckets.map((bucket) => bucket.key),
                now,
                ...buckets.flatMap((bucket) => [bucket.capacity, bucket.perSeconds]),
            )) as [string, string] | null
            return blocked ? { index: Number(blocked[0]), tokens: Number(blocked[1]) } : undefined
        })
    }

    async publish(channel: string, message: string) {
        await this.command(() => this.redis.publish(`${prefix}${channel}`, message))
    }

    async subscribe(channel: string, listener: (message: string) => void) {
        const name = `${prefix}${channel}`
        this.subscriber.on('message', (from: string, message: string) => {
            if (from === name) listener(message)
        })
        // Connected already: a later 'ready' is the connection back after a loss, and what was said
        // meanwhile is lost, so the listener hears an empty message then.
        this.subscriber.on('ready', () => listener(''))
        await this.command(() => this.subscriber.subscribe(name))
    }

    async close() {
        this.subscriber.disconnect()
        await this.redis.quit().catch(() => this.redis.disconnect())
    }

    /** Runs a command; any failure of Redis (away, timed out) is a refusal that says so. */
    private async command<T>(run: () => Promise<T>): Promise<T> {
        try {
            return await run()
        } catch (error) {
            throw new Refusal(
                'unavailable',
                `the shared state (${this.description}) cannot be reached (${(error as Error).message}): nothing was changed; try again in a moment`,
                retryAfterSeconds,
            )
        }
    }

    private lost(role: string, error: Error) {
        if (!this.away.size)
            console.error(
                `shelf: ${this.description} is away (${error.message}): writes answer 503 until it is back; reads go on`,
            )
        this.away.add(role)
    }

    private back(role: string) {
        if (!this.away.delete(role) || this.away.size) return
        console.error(`shelf: ${this.description} is back`)
    }
}

/** The address as printed: a password in the URL stays out of logs and the terminal. */
const withoutPassword = (url: string) => {
    try {
        const parsed = new URL(url)
        if (parsed.password) parsed.password = '***'
        return parsed.toString()
    } catch {
        return 'the --redis address'
    }
}
