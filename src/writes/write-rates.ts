import type { WriteKind, WriteRate } from '../content/server-settings.js'
import type { SharedState } from '../shared-state/shared-state.js'
import { Refusal } from '../util/refusal.js'

/**
 * How fast players write: a token bucket per player and per address for each kind of write,
 * holding `perPlayer` (or `perAddress`) writes and refilled at that many per `perSeconds`. The
 * buckets are in the shared state, so replicas count together; the rates are read from the
 * settings at every write, so an edit of server.yaml applies at once.
 */
export class WriteRates {
    constructor(private readonly state: SharedState) {}

    /** Counts one write, or refuses it (429) saying when the next one is allowed. */
    async take(
        kind: WriteKind,
        rate: WriteRate,
        who: { player: string; address: string },
        now = Date.now(),
    ) {
        const limits = [
            { key: `rate:${kind}:player:${who.player}`, capacity: rate.perPlayer, whose: 'you' },
            {
                key: `rate:${kind}:address:${who.address}`,
                capacity: rate.perAddress,
                whose: 'players at your address',
            },
        ]
        const blocked = await this.state.takeTokens(
            limits.map(({ key, capacity }) => ({ key, capacity, perSeconds: rate.perSeconds })),
            now,
        )
        if (!blocked) return
        const { capacity, whose } = limits[blocked.index]!
        const waitSeconds = Math.max(
            1,
            Math.ceil(((1 - blocked.tokens) * rate.perSeconds) / capacity),
        )
        throw new Refusal(
            'too-many',
            `${whose} may make ${capacity} ${kind} in ${describeSeconds(rate.perSeconds)}: try again in ${describeSeconds(waitSeconds)}`,
            waitSeconds,
        )
    }
}

const describeSeconds = (seconds: number) =>
    seconds % 3600 === 0
        ? plural(seconds / 3600, 'hour')
        : seconds % 60 === 0
          ? plural(seconds / 60, 'minute')
          : plural(seconds, 'second')

const plural = (count: number, unit: string) => (count === 1 ? `a ${unit}` : `${count} ${unit}s`)
