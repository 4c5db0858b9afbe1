import type { SharedState } from '../shared-state/shared-state.js'
import type { ContentRepository } from './content-repository.js'
import type { RemoteSync } from './remote-sync.js'

/** How long a player's last write is remembered: far longer than any replica lags behind. */
const rememberMs = 60 * 60_000
/** How long a read waits for its replica to catch up with the player's last write before answering anyway. */
const catchUpMs = 5_000
/** Commits known to be served here, kept for the players who ask again; past this many, forgotten. */
const maxKnown = 10_000

const entry = (userId: string) => `last-write:${userId}`

/**
 * Read-your-writes across replicas: after a write reaches the remote, the shared state holds the
 * remote's head for that player; a replica that does not have it yet pulls before answering that
 * player (at most `catchUpMs`), so the player's next read includes the write wherever it lands.
 */
export class PlayerWrites {
    private readonly known = new Set<string>()

    constructor(
        private readonly state: SharedState,
        private readonly repository: ContentRepository,
        private readonly sync: Pick<RemoteSync, 'pull' | 'settled'>,
    ) {}

    /** Remembers the commit that holds a player's write; the write stays acknowledged if Redis is away. */
    async wrote(userId: string, commit: string) {
        this.known.add(commit)
        await this.state
            .set(entry(userId), commit, rememberMs)
            .catch((error: Error) =>
                console.error(
                    `shelf: could not note ${userId}'s write for the other replicas (${error.message}); they serve it once they pull`,
                ),
            )
    }

    /** Resolves once this replica serves the player's last write, or once it has waited long enough. */
    async catchUp(userId: string) {
        // Redis away: reads go on with what this replica has.
        const commit = await this.state.get(entry(userId)).catch(() => undefined)
        if (!commit || this.known.has(commit)) return
        // Past the deadline the commit counts as known too: one the remote lost (a force-push)
        // must not hold up every later request of that player.
        for (const deadline = Date.now() + catchUpMs; !(await this.serves(commit));) {
            if (Date.now() >= deadline) break
            await Promise.race([
                this.sync.pull().catch(() => undefined),
                new Promise((resolve) => setTimeout(resolve, deadline - Date.now()).unref()),
            ])
        }
        if (this.known.size >= maxKnown) this.known.clear()
        this.known.add(commit)
    }

    /** Whether HEAD holds the commit; a pull that moved HEAD finishes serving first. */
    private async serves(commit: string) {
        const held = await this.repository.isAncestor(commit, 'HEAD').catch(() => false)
        if (held) await this.sync.settled()
        return held
    }
}
