import type { GitOptions } from '../config.js'
import type { Problem } from '../content/problems.js'
import type { WrittenHook } from '../writes/content-writer.js'
import { ContentRepository, type Upstream } from './content-repository.js'
import { GitProblems } from './git-problems.js'
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
    webhookSecret?: string
    /** The upstream followed, `origin/main`, for the terminal. */
    upstream?: string
    close(): Promise<void>
}

/**
 * Starts committing player writes and, when asked, following the upstream. `reload` serves the
 * paths a pull changed, through the same reload as an edit of the folder.
 */
export const startGit = async (
    { repository, upstream, options }: OpenedGit,
    reload: (paths: string[]) => Promise<void>,
): Promise<ContentGit> => {
    const problems = new GitProblems()
    const sync =
        upstream &&
        new RemoteSync(
            repository,
            upstream,
            problems,
            { pullEveryMs: options.pull?.everyMs, push: options.push },
            reload,
        )
    const commits = new WriteCommits(repository, problems, () => sync?.requestPush())
    await sync?.start()
    return {
        written: (files, change) => commits.commit(files, change),
        problems: () => [...problems.list(), ...(sync?.conflicts ?? [])],
        pull: sync && options.pull ? () => sync.pull() : undefined,
        webhookSecret: options.pull?.webhookSecret,
        upstream: upstream?.name,
        close: async () => {
            await sync?.close()
            // The last commit finishes: git's locks are released before the process ends.
            await repository.exclusive(async () => undefined)
        },
    }
}
