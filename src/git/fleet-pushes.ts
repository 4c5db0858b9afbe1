import { randomBytes } from 'node:crypto'
import type { SharedState } from '../shared-state/shared-state.js'

/** The lock replicas take turns on to push, and the remote's head as the last push left it. */
const turnKey = 'git-push-turn'
const headKey = 'git-head'
/** Where replicas say they pushed, so the others pull at once rather than at their next interval. */
export const pushedChannel = 'git-pushed'

/**
 * A turn left by a replica that died holding it frees itself after this; a live holder renews
 * it while its push runs, so a slow push keeps its turn and a killed replica stalls the fleet's
 * pushes for seconds, not for as long as the slowest push could take.
 */
const turnMs = 3_000
const renewEveryMs = 1_000
/** How often a replica waiting for its turn asks again. */
const askEveryMs = 15
/** Past this, a replica pushes without its turn (git still refuses a push that would lose a commit). */
const waitAtMostMs = 30_000
/** How long the remote's last head is remembered: replicas catch up far sooner. */
const headMs = 60 * 60_000

/** What a push signal says: who pushed, and the remote's head after it. */
export type PushSignal = { replica?: string; head?: string }

/**
 * Replicas push to one branch one at a time, in turns taken in the shared state: pushes that
 * race are refused but one, and every refused one costs a fetch, a replay and a push again,
 * more of them with every replica added. The turn is only a schedule: git's own check (a push
 * must not drop the remote's commits) still guards every push, so a turn lost with Redis, or one
 * that expired under a stalled replica, costs a refused push and nothing else.
 */
export class FleetPushes {
    readonly replica = randomBytes(8).toString('hex')

    constructor(private readonly shared: SharedState) {}

    /** Runs `task` in this replica's turn, or without it if the shared state is away or the wait is too long. */
    async turn<T>(task: () => Promise<T>): Promise<T> {
        const token = `${this.replica}:${randomBytes(4).toString('hex')}`
        const taken = await this.take(token)
        const renewal = taken ? setInterval(() => void this.renew(token), renewEveryMs) : undefined
        try {
            return await task()
        } finally {
            clearInterval(renewal)
            if (taken) await this.release(token)
        }
    }

    /** The remote's head as the last push through the shared state left it (undefined if unknown). */
    lastHead() {
        return this.shared.get(headKey).catch(() => undefined)
    }

    /** Notes the remote's new head and tells every replica, which fetch it at once. */
    async pushed(head: string) {
        try {
            await this.shared.set(headKey, head, headMs)
            await this.shared.publish(
                pushedChannel,
                JSON.stringify({ replica: this.replica, head } satisfies PushSignal),
            )
        } catch (error) {
            console.error(
                `shelf: git: could not tell the other replicas of a push (${(error as Error).message}); they pull at their next interval`,
            )
        }
    }

    private async take(token: string) {
        for (const until = Date.now() + waitAtMostMs; Date.now() < until;) {
            const taken = await this.shared
                .set(turnKey, token, turnMs, { ifAbsent: true })
                .catch(() => undefined)
            // The shared state is away: push without a turn rather than not at all.
            if (taken === undefined) return false
            if (taken) return true
            await new Promise((resolve) => setTimeout(resolve, askEveryMs))
        }
        return false
    }

    private async renew(token: string) {
        // Get then set is not one step: a turn lost in between costs a refused push, nothing else.
        if ((await this.shared.get(turnKey).catch(() => undefined)) === token)
            await this.shared.set(turnKey, token, turnMs).catch(() => undefined)
    }

    private async release(token: string) {
        // Only our own turn: one that expired under us may be another replica's by now.
        if ((await this.shared.get(turnKey).catch(() => undefined)) === token)
            await this.shared.delete([turnKey]).catch(() => undefined)
    }
}

/** A push signal as sent; a message that is not one (a reconnection's empty one) says nothing. */
export const readPushSignal = (message: string): PushSignal => {
    try {
        const signal = JSON.parse(message) as PushSignal
        return typeof signal === 'object' && signal ? signal : {}
    } catch {
        return {}
    }
}
