import { join } from 'node:path'
import type { ContentRepository } from './content-repository.js'
import { GitCommandError } from './git-command.js'
import { identityEnvironment, serverCommitter } from './identity.js'

/** Where a commit that could not be replayed is kept: a branch per commit, named by it. */
export const conflictBranchPrefix = 'shelf/conflict/'

export type Replayed = { tip: string; conflicts: { branch: string; commit: string }[] }

/**
 * Replays the commits of `local` that `onto` lacks on top of `onto`, as `git rebase` would, but
 * in a private index: the work tree and the owner's index are untouched until the result is
 * checked out. A commit whose change cannot be applied (the remote changed the same lines) is
 * left out of the result and kept on its own branch, so no write is lost; the rest go on.
 */
export const replay = async (
    repository: ContentRepository,
    onto: string,
    local: string,
): Promise<Replayed> => {
    const run = repository.runAtTop
    const privateIndex = { GIT_INDEX_FILE: join(repository.gitDir, 'shelf-replay-index') }
    // --cherry-pick leaves out commits whose change the remote already has (a push that went
    // through before a pull rewrote it, say), as rebase does.
    const commits = (
        await run([
            'rev-list',
            '--reverse',
            '--no-merges',
            '--right-only',
            '--cherry-pick',
            `${onto}...${local}`,
        ])
    )
        .split('\n')
        .filter(Boolean)
    let tip = onto
    let tipTree = ''
    const conflicts: Replayed['conflicts'] = []
    const authors = commits.length ? await authorsOf(repository, commits) : []
    for (const [index, commit] of commits.entries()) {
        // The private index holds the tip's tree, but after a failed apply, which may leave it half done.
        if (!tipTree) {
            await run(['read-tree', tip], { env: privateIndex })
            tipTree = (await run(['rev-parse', `${tip}^{tree}`])).trim()
        }
        const patch = await run([
            'diff-tree',
            '-p',
            '--binary',
            '--full-index',
            '--no-renames',
            `${commit}^`,
            commit,
        ])
        if (!patch.trim()) continue
        try {
            await run(['apply', '--cached', '--3way', '--whitespace=nowarn'], {
                env: privateIndex,
                input: patch,
            })
        } catch (error) {
            if (!(error instanceof GitCommandError)) throw error
            const branch = `${conflictBranchPrefix}${commit.slice(0, 12)}`
            await run(['branch', '--force', branch, commit])
            conflicts.push({ branch, commit })
            tipTree = ''
            continue
        }
        const tree = (await run(['write-tree'], { env: privateIndex })).trim()
        if (tree === tipTree) continue
        const { name, email, date, message } = authors[index]!
        tip = (
            await run(['commit-tree', tree, '-p', tip, '-F', '-'], {
                env: identityEnvironment({ name, email }, serverCommitter(), { author: date }),
                input: message,
            })
        ).trim()
        tipTree = tree
    }
    return { tip, conflicts }
}

/** Each commit's author and message, read in one go. */
const authorsOf = async (repository: ContentRepository, commits: string[]) => {
    // One record per commit, ended by a byte no commit message holds.
    const records = (
        await repository.runAtTop(
            ['show', '--no-patch', '--format=%an%x00%ae%x00%ad%x00%B%x01', '--date=raw', '--stdin'],
            { input: commits.join('\n') },
        )
    ).split('\x01\n')
    return commits.map((_, index) => {
        const [name, email, date, ...message] = records[index]!.split('\0') as [
            string,
            string,
            string,
            ...string[],
        ]
        return { name, email, date, message: message.join('\0') }
    })
}
