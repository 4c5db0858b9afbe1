import { rm } from 'node:fs/promises'
import { join } from 'node:path'
import { GitCommandError, gitIn, requireGit, type GitRun } from './git-command.js'

/** The ref value git reads as "must not exist yet": the first commit of a new repository. */
export const noCommit = '0'.repeat(40)

/** What --git asks of a folder that is not in a git work tree, or has no git at all. */
export class GitSetupError extends Error {}

/** Where the current branch follows: `origin` and `refs/heads/main` for `origin/main`. */
export type Upstream = { branch: string; remote: string; mergeRef: string; name: string }

/**
 * The git repository holding the content folder. `run` runs git in the content folder (paths
 * relative to it), `runAtTop` at the top of the work tree (paths as commits hold them). Every
 * step that moves HEAD or the index is done through `exclusive`, one at a time, so commits of
 * concurrent writes and pulls never interleave.
 */
export class ContentRepository {
    private queue: Promise<unknown> = Promise.resolve()

    private constructor(
        readonly run: GitRun,
        readonly runAtTop: GitRun,
        /** `.git` (or a worktree's own folder inside it): where Shelf keeps its private index. */
        readonly gitDir: string,
        /** The content folder's path from the top of the work tree, `content/` (or empty at the top). */
        readonly prefix: string,
    ) {}

    /** Opens the repository of `folder`, refusing with what to do when git or the repository is missing. */
    static async open(folder: string) {
        const run = gitIn(folder)
        await requireGit(run)
        const inside = await run(['rev-parse', '--is-inside-work-tree']).catch(() => 'false')
        if (inside.trim() !== 'true') {
            throw new GitSetupError(
                `--git needs the content folder ${folder} to be inside a git work tree, and it is not: run "git init" there (or clone the repository that holds it), commit the folder, and start again`,
            )
        }
        const [top, gitDir, prefix = ''] = (
            await run(['rev-parse', '--show-toplevel', '--absolute-git-dir', '--show-prefix'])
        )
            .trim()
            .split('\n') as [string, string, string?]
        // Locks of Shelf's private index files, left by a Shelf killed mid-commit, hold nobody's work.
        for (const lock of ['shelf-index.lock', 'shelf-replay-index.lock'])
            await rm(join(gitDir, lock), { force: true })
        return new ContentRepository(run, gitIn(top), gitDir, prefix)
    }

    /** Runs git steps that must not interleave with other such steps. */
    exclusive<T>(task: () => Promise<T>): Promise<T> {
        const result = this.queue.then(task)
        this.queue = result.catch(() => undefined)
        return result
    }

    /** HEAD's commit and tree; both absent on a branch with no commit yet. */
    async head(): Promise<{ commit?: string; tree?: string }> {
        try {
            const [commit, tree] = (await this.run(['rev-parse', 'HEAD', 'HEAD^{tree}']))
                .trim()
                .split('\n')
            return { commit, tree }
        } catch (error) {
            if (error instanceof GitCommandError) return {}
            throw error
        }
    }

    async revision(name: string) {
        return (await this.run(['rev-parse', '--verify', '--quiet', `${name}^{commit}`])).trim()
    }

    async isAncestor(ancestor: string, descendant: string) {
        try {
            await this.run(['merge-base', '--is-ancestor', ancestor, descendant])
            return true
        } catch (error) {
            if (error instanceof GitCommandError && error.code === 1) return false
            throw error
        }
    }

    /** The current branch's upstream, or a GitSetupError saying how to give it one. */
    async upstream(): Promise<Upstream> {
        const branch = (
            await this.run(['symbolic-ref', '--quiet', '--short', 'HEAD']).catch(() => '')
        ).trim()
        if (!branch)
            throw new GitSetupError(
                '--git-pull and --git-push follow the current branch, and HEAD is detached: check out a branch ("git switch main")',
            )
        const config = async (key: string) =>
            (await this.run(['config', '--get', `branch.${branch}.${key}`]).catch(() => '')).trim()
        const [remote, mergeRef] = [await config('remote'), await config('merge')]
        if (!remote || !mergeRef) {
            throw new GitSetupError(
                `--git-pull and --git-push follow the upstream of branch "${branch}", and it has none: set one with "git branch --set-upstream-to=origin/${branch}" (or "git push -u origin ${branch}")`,
            )
        }
        return {
            branch,
            remote,
            mergeRef,
            name: `${remote}/${mergeRef.replace(/^refs\/heads\//, '')}`,
        }
    }
}
