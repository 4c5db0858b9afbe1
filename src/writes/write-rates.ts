import type { WriteKind, WriteRate } from '../content/server-settings.js'
import { Refusal } from '../util/refusal.js'

/** Buckets kept before the full ones (those that have forgotten every write) are dropped. */
const prunePast = 10_000

/** Writes left, as of `at`; `fullAt` is when it will have refilled, and can be forgotten. */
type Bucket = { tokens: number; at: number; fullAt: number }

/**
 * How fast players write: a token bucket per player and per address for each kind of write,
 * holding `perPlayer` (or `perAddress`) writes and refilled at that many per `perSeconds`. The
 * rates are read from the settings at every write, so an edit of server.yaml applies at once.
 */
export class WriteRates {
    private readonly buckets = new Map<string, Bucket>()

    /** Counts one write, or refuses it (429) saying when the next one is allowed. */
    take(
        kind: WriteKind,
        rate: WriteRate,
        who: { player: string; address: string },
        now = Date.now(),
    ) {
        const player = this.bucket(
            `${kind} player ${who.player}`,
            rate.perPlayer,
            rate.perSeconds,
            now,
        )
        const address = this.bucket(
            `${kind} address ${who.address}`,
            rate.perAddress,
            rate.perSeconds,
            now,
        )
        const blocked = [
            { bucket: player, capacity: rate.perPlayer, whose: 'you' },
            { bucket: address, capacity: rate.perAddress, whose: 'players at your address' },
        ].find(({ bucket }) => bucket.tokens < 1)
        if (blocked) {
            const waitSeconds = Math.max(
                1,
                Math.ceil(((1 - blocked.bucket.tokens) * rate.perSeconds) / blocked.capacity),
            )
            throw new Refusal(
                'too-many',
                `${blocked.whose} may make ${blocked.capacity} ${kind} in ${describeSeconds(rate.perSeconds)}: try again in ${describeSeconds(waitSeconds)}`,
                waitSeconds,
            )
        }
        for (const [bucket, capacity] of [
            [player, rate.perPlayer],
            [address, rate.perAddress],
        ] as const) {
            bucket.tokens -= 1
            bucket.fullAt = now + ((capacity - bucket.tokens) / capacity) * rate.perSeconds * 1000
        }
        if (this.buckets.size > prunePast) this.prune(now)
    }

    private bucket(key: string, capacity: number, perSeconds: number, now: number) {
        const bucket = this.buckets.get(key) ?? { tokens: capacity, at: now, fullAt: now }
        bucket.tokens = Math.min(
            capacity,
            bucket.tokens + ((now - bucket.at) / 1000 / perSeconds) * capacity,
        )
        bucket.at = now
        this.buckets.set(key, bucket)
        return bucket
    }

    /** Drops the buckets that have refilled: a new one starts full, so they hold nothing to remember. */
    private prune(now: number) {
        for (const [key, bucket] of this.buckets) if (bucket.fullAt <= now) this.buckets.delete(key)
    }
}

const describeSeconds = (seconds: number) =>
    seconds % 3600 === 0
        ? plural(seconds / 3600, 'hour')
        : seconds % 60 === 0
          ? plural(seconds / 60, 'minute')
          : plural(seconds, 'second')

const plural = (count: number, unit: string) => (count === 1 ? `a ${unit}` : `${count} ${unit}s`)
