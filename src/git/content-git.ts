import type { GitOptions } from '../config.js'
import type { Problem } from '../content/problems.js'
import type { WrittenHook } from '../writes/content-writer.js'
import { ContentRepository, type Upstream } from './content-repository.js'
import type { SharedState } from '../shared-state/shared-state.js'
import { FleetPushes, pushedChannel, readPushSignal } from './fleet-pushes.js'
import { GitProblems } from './git-problems.js'
import { PlayerWrites } from './player-writes.js'
import { RemoteSync, type PullOutcome } from './remote-sync.js'
import { WriteCommits } from './write-commits.js'

/** The folder's repository, checked before anything is served: a mistake here stops the start. */
export type OpenedGit = { repository: ContentRepository; upstream?: Upstream; options: GitOptions }

export const openGit = async (folder: string, options: GitOptions): Promise<OpenedGit> => {
    const repository = await ContentRepository.open(folder)
    const upstream = options.pull || options.push ? await repository.upstream() : undefined
    return { repository, upstream, options }
}

/** What the rest of Shelf sees of git: the writer's hook, the problems, a pull on demand. */
export type ContentGit = {
    written: WrittenHook
    problems(): Problem[]
    /** Pulls now (a webhook), when following a remote. */
    pull?: () => Promise<PullOutcome>
    /** Replicas: resolves once this one serves the player's last write (read-your-writes). */
    catchUp?: (userId: string) => Promise<void>
    webhookSecret?: string
    /** The upstream followed, `origin/main`, for the terminal. */
    upstream?: string
    close(): Promise<void>
}

/** How long a write waits for its push before it is answered anyway (it goes with the next push). */
const pushWaitMs = 10_000

/**
 * Starts committing player writes and, when asked, following the upstream. `reload` serves the
 * paths a pull changed, through the same reload as an edit of the folder. With replicas (the
 * shared state in Redis), pushing and pulling, a write is answered once it is on the remote, and
 * every push is announced to the other replicas, which pull at once.
 */
export const startGit = async (
    { repository, upstream, options }: OpenedGit,
    shared: SharedState,
    reload: (paths: string[]) => Promise<void>,
): Promise<ContentGit> => {
    const problems = new GitProblems()
    const fleet = new FleetPushes(shared)
    const sync =
        upstream &&
        new RemoteSync(
            repository,
            upstream,
            problems,
            {
                pullEveryMs: options.pull?.everyMs,
                push: options.push,
                fleet,
                headMoved: () => commits.headMoved(),
            },
            reload,
        )
    const commits = new WriteCommits(repository, problems, () => sync?.requestPush())
    const following = sync && options.pull ? sync : undefined
    if (following)
        await shared.subscribe(pushedChannel, (message) => {
            const { replica, head } = readPushSignal(message)
            // A replica that took the commit already (fetched in its own turn to push) has nothing to pull.
            if (replica === fleet.replica || (head && following.holdsRemote(head))) return
            following.pull().catch(() => undefined)
        })
    const playerWrites =
        following && options.push && shared.acrossReplicas
            ? new PlayerWrites(shared, repository, following)
            : undefined
    await sync?.start()
    return {
        written: async (files, change) => {
            const commit = await commits.commit(files, change)
            if (commit && playerWrites && sync) {
                const head = await Promise.race([
                    sync.pushNow(),
                    new Promise<undefined>((resolve) =>
                        setTimeout(resolve, pushWaitMs, undefined).unref(),
                    ),
                ])
                if (head) await playerWrites.wrote(change.user.id, head)
            }
            return commit
        },
        problems: () => [...problems.list(), ...(sync?.conflicts ?? [])],
        pull: following && (() => following.pull()),
        catchUp: playerWrites && ((userId) => playerWrites.catchUp(userId)),
        webhookSecret: options.pull?.webhookSecret,
        upstream: upstream?.name,
        close: async () => {
            await sync?.close()
            // The last commit finishes: git's locks are released before the process ends.
            await repository.exclusive(async () => undefined)
        },
    }
}
