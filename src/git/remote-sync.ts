import type { Problem } from '../content/problems.js'
import type { ContentRepository, Upstream } from './content-repository.js'
import type { FleetPushes } from './fleet-pushes.js'
import { noCommit } from './content-repository.js'
import { GitCommandError } from './git-command.js'
import type { GitProblems } from './git-problems.js'
import { conflictBranchPrefix, replay } from './replay.js'

/** git's tree with nothing in it: where a branch with no commit yet starts from. */
const emptyTree = '4b825dc642cb6eb9a060e54bf8d69288fbee4904'

/** A push refused because the remote moved is retried after a pull, this many times in all. */
const pushAttempts = 5

/** A fetch that failed (a lock held a moment too long, a network hiccup) is tried again, this many times in all. */
const fetchAttempts = 4
const fetchRetryMs = 150

/** What one pull did. */
export type PullOutcome = { from?: string; to?: string; changed: string[]; conflicts: string[] }

export type RemoteSyncOptions = {
    pullEveryMs?: number
    push: boolean
    /** Pushes one replica at a time, and tells the others the remote's new head, which they pull at once. */
    fleet: FleetPushes
    /** Told when a pull moved HEAD (in the repository's exclusive turn). */
    headMoved?: () => void
}

/**
 * Follows the current branch's upstream: fetches, then brings the folder up to date (a
 * fast-forward, or the local commits replayed on top of the remote) and hands the changed paths
 * to the same reload as an edit; pushes local commits, one push for however many commits were
 * made while the previous push was on its way. One operation on the remote at a time: a fetch and
 * a push both update the remote-tracking branch, and two at once fail on its lock. Replicas push
 * in turns: in its turn, a replica behind the remote's last push fetches and replays first, so
 * its push goes through at the first try.
 */
export class RemoteSync {
    private remoteTurns: Promise<unknown> = Promise.resolve()
    private pullRunning: Promise<unknown> = Promise.resolve()
    /** The last move of the folder to the remote's commits (by a pull, or before a push), until served. */
    private integrating: Promise<unknown> = Promise.resolve()
    private pullNext: Promise<PullOutcome> | undefined
    private pushing: Promise<void> | undefined
    private pushAgain = false
    /** Writes waiting for a push that holds their commit, told the remote's head then (undefined if it failed). */
    private pushWaiters: ((head: string | undefined) => void)[] = []
    private timer: NodeJS.Timeout | undefined
    private closed = false
    /** The remote's commit the folder was last brought up to (by a pull, or by a push of it). */
    private reached: string | undefined
    /** One problem per conflict branch, for as long as the branch is there. */
    conflicts: Problem[] = []

    constructor(
        private readonly repository: ContentRepository,
        private readonly upstream: Upstream,
        private readonly problems: GitProblems,
        private readonly options: RemoteSyncOptions,
        /** Reloads paths (relative to the content folder) a pull changed; resolves once they are served. */
        private readonly changed: (paths: string[]) => Promise<void>,
    ) {}

    /**
     * Lists the conflicts left from before, and pulls once before resolving (a replica started
     * late serves what the others have written before it listens), then every interval.
     */
    async start() {
        await this.listConflicts()
        if (this.options.pullEveryMs === undefined) return
        await this.pull().catch(() => undefined)
        this.schedulePull()
    }

    /** Fetches and brings the folder up to date; a pull asked for while one runs is done once after it. */
    pull(): Promise<PullOutcome> {
        this.pullNext ??= this.pullRunning.then(() => {
            this.pullNext = undefined
            return this.pullOnce()
        })
        this.pullRunning = this.pullNext.catch(() => undefined)
        return this.pullNext
    }

    /** Whether the folder holds this commit of the remote already, known without asking git. */
    holdsRemote(commit: string) {
        return commit === this.reached
    }

    /** Resolves once the pull running now (if any) has served its change. */
    async settled() {
        await this.pullRunning
        await this.integrating
    }

    /** Pushes the branch and resolves with the remote's head once a push holds what is committed now (undefined if it failed). */
    pushNow(): Promise<string | undefined> {
        if (!this.options.push || this.closed) return Promise.resolve(undefined)
        const pushed = new Promise<string | undefined>((resolve) => this.pushWaiters.push(resolve))
        this.requestPush()
        return pushed
    }

    /** Pushes the branch soon; commits made while a push runs go in the next one. */
    requestPush() {
        if (!this.options.push || this.closed) return
        if (this.pushing) {
            this.pushAgain = true
            return
        }
        this.pushing = this.pushWhileAsked().finally(() => {
            this.pushing = undefined
            // Asked for between the last round and this line: one more round.
            if (this.pushAgain || this.pushWaiters.length) this.requestPush()
        })
    }

    async close() {
        this.closed = true
        clearTimeout(this.timer)
        await this.pushing
        await this.pullRunning
    }

    private schedulePull() {
        if (this.options.pullEveryMs === undefined || this.closed) return
        this.timer = setTimeout(
            () =>
                void this.pull().then(
                    () => this.schedulePull(),
                    () => this.schedulePull(),
                ),
            this.options.pullEveryMs,
        ).unref()
    }

    private async pullOnce(): Promise<PullOutcome> {
        const { name } = this.upstream
        try {
            const outcome = await this.onRemote(() => this.catchUpWithRemote())
            // Commits a failed push left behind go with the next pull's push.
            this.requestPush()
            return outcome
        } catch (error) {
            this.problems.report('pull', {
                file: '.',
                message: `could not pull ${name}: ${(error as Error).message}; serving goes on with what is here`,
                severity: 'error',
            })
            throw error
        }
    }

    /** In the remote's turn: fetches, and moves the folder to the remote's commits (ours replayed on them). */
    private async catchUpWithRemote() {
        await this.fetch()
        const integrated = this.repository.exclusive(() => this.integrate())
        this.integrating = integrated.catch(() => undefined)
        const outcome = await integrated
        this.problems.clear('pull')
        if (outcome.conflicts.length) await this.listConflicts()
        return outcome
    }

    private async integrate(): Promise<PullOutcome> {
        const tips = await this.tips()
        const { head } = tips
        const remote =
            tips.remote ?? (await this.repository.revision(`${this.upstream.branch}@{upstream}`))
        const nothing = { changed: [], conflicts: [] }
        // A replica with no commit of its own fast-forwards: the common case, asked first.
        const fastForward =
            head !== remote && (!head || (await this.repository.isAncestor(head, remote)))
        if (head === remote || (!fastForward && (await this.repository.isAncestor(remote, head)))) {
            this.reached = remote
            return nothing
        }
        const { tip, conflicts } = fastForward
            ? { tip: remote, conflicts: [] }
            : await replay(this.repository, remote, head!)
        const changed = await this.checkout(head, tip)
        this.reached = remote
        return { from: head, to: tip, changed, conflicts: conflicts.map(({ branch }) => branch) }
    }

    /**
     * Moves the branch from `from` to `to` the way `git merge` does: only files that differ
     * between the two are rewritten, and the owner's own changes (staged or not) stay; if one
     * of them is in the way, nothing moves and the pull fails, saying which.
     */
    private async checkout(from: string | undefined, to: string) {
        const changed = (
            await this.repository.run([
                'diff',
                '--name-only',
                '-z',
                '--no-renames',
                '--relative',
                from ?? emptyTree,
                to,
            ])
        )
            .split('\0')
            .filter(Boolean)
        await this.repository.runAtTop(['read-tree', '-m', '-u', from ?? emptyTree, to])
        await this.repository.run([
            'update-ref',
            '-m',
            `shelf: pull ${this.upstream.name}`,
            'HEAD',
            to,
            from ?? noCommit,
        ])
        this.options.headMoved?.()
        await this.changed(changed)
        return changed
    }

    /** Runs an operation on the remote once the one before it is done. */
    private onRemote<T>(task: () => Promise<T>): Promise<T> {
        const result = this.remoteTurns.then(task)
        this.remoteTurns = result.catch(() => undefined)
        return result
    }

    /**
     * Fetches the followed branch only, into its remote-tracking branch, and nothing else: no
     * FETCH_HEAD, no housekeeping after it (Shelf asks for that every so many commits).
     */
    private async fetch() {
        const { remote, mergeRef, name } = this.upstream
        for (let attempt = 1; ; attempt++) {
            try {
                await this.repository.run([
                    'fetch',
                    '--quiet',
                    '--no-write-fetch-head',
                    '--no-auto-maintenance',
                    remote,
                    `+${mergeRef}:refs/remotes/${name}`,
                ])
                return
            } catch (error) {
                if (attempt >= fetchAttempts || this.closed || !(error instanceof GitCommandError))
                    throw error
                await new Promise((resolve) => setTimeout(resolve, fetchRetryMs * attempt))
            }
        }
    }

    private async pushWhileAsked() {
        while (!this.closed) {
            this.pushAgain = false
            const waiting = this.pushWaiters.splice(0)
            const head = await this.pushOnce().catch(() => undefined)
            for (const resolve of waiting) resolve(head)
            if (!this.pushAgain && !this.pushWaiters.length) return
        }
        for (const resolve of this.pushWaiters.splice(0)) resolve(undefined)
    }

    /** Pushes HEAD; the remote's head after it, or undefined when it could not be pushed. */
    private async pushOnce(): Promise<string | undefined> {
        const { name } = this.upstream
        const { fleet } = this.options
        for (let attempt = 1; ; attempt++) {
            try {
                const pushed = await fleet.turn(() =>
                    this.onRemote(async () => {
                        const last = await fleet.lastHead()
                        let { head, remote } = await this.tips()
                        // Another replica pushed since this one last fetched: its commits first.
                        if (last && last !== remote && !(await this.holds(last))) {
                            await this.catchUpWithRemote()
                            ;({ head, remote } = await this.tips())
                        }
                        if (!head || head === remote) return remote
                        const { remote: to, mergeRef } = this.upstream
                        // git moves the remote-tracking branch too.
                        await this.repository.run(['push', '--quiet', to, `${head}:${mergeRef}`])
                        this.reached = head
                        await fleet.pushed(head)
                        return head
                    }),
                )
                this.problems.clear('push')
                return pushed
            } catch (error) {
                // Another server pushed first: take its commits, replay ours on them, and push again.
                // (A remote on the same disk refuses a push racing another with "failed to update ref".)
                const behind =
                    error instanceof GitCommandError &&
                    /\[rejected\]|non-fast-forward|fetch first|stale info|failed to update ref|cannot lock ref/.test(
                        error.stderr,
                    )
                if (behind && attempt < pushAttempts && !this.closed) {
                    if (
                        await this.pull().then(
                            () => true,
                            () => false,
                        )
                    )
                        continue
                }
                this.problems.report('push', {
                    file: '.',
                    message: `could not push to ${name}: ${(error as Error).message}; the commits stay here and go with the next push`,
                    severity: 'error',
                })
                return undefined
            }
        }
    }

    /** HEAD's commit and the remote-tracking branch's, in one git call (either absent when it is). */
    private async tips(): Promise<{ head?: string; remote?: string }> {
        const { run } = this.repository
        const upstream = `${this.upstream.branch}@{upstream}`
        try {
            const [head, remote] = (await run(['rev-parse', 'HEAD', upstream])).trim().split('\n')
            return { head, remote }
        } catch {
            const remote = await this.repository.revision(upstream).catch(() => undefined)
            return { head: (await this.repository.head()).commit, remote }
        }
    }

    /** Whether HEAD holds a commit (false for one not fetched yet). */
    private holds(commit: string) {
        return this.repository.isAncestor(commit, 'HEAD').catch(() => false)
    }

    /** Every conflict branch as a problem naming the write, its files and what to do. */
    private async listConflicts() {
        const { run } = this.repository
        const branches = (
            await run([
                'for-each-ref',
                '--format=%(refname:short)%00%(objectname)%00%(subject)',
                `refs/heads/${conflictBranchPrefix}`,
            ])
        )
            .split('\n')
            .filter(Boolean)
        const known = new Set(this.conflicts.map((problem) => problem.message))
        this.conflicts = await Promise.all(
            branches.map(async (line) => {
                const [branch, commit, subject] = line.split('\0') as [string, string, string]
                const files = (
                    await run([
                        'diff-tree',
                        '--no-commit-id',
                        '--name-only',
                        '-r',
                        '--relative',
                        commit,
                    ])
                )
                    .split('\n')
                    .filter(Boolean)
                return {
                    file: files[0] ?? '.',
                    message: `"${subject}" (commit ${commit.slice(0, 12)}) conflicts with ${this.upstream.name}, which changed the same file; it is kept on branch ${branch} and not served: merge it by hand ("git merge ${branch}") or drop it ("git branch -D ${branch}")`,
                    severity: 'error' as const,
                }
            }),
        )
        for (const problem of this.conflicts)
            if (!known.has(problem.message))
                console.error(`shelf: git: ${problem.file}: ${problem.message}`)
    }
}
