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
    const conflicts: Replayed['conflicts'] = []
    for (const commit of commits) {
        await run(['read-tree', tip], { env: privateIndex })
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
            continue
        }
        const tree = (await run(['write-tree'], { env: privateIndex })).trim()
        if (tree === (await run(['rev-parse', `${tip}^{tree}`])).trim()) continue
        const [name, email, date, ...message] = (
            await run([
                'show',
                '--no-patch',
                '--format=%an%x00%ae%x00%ad%x00%B',
                '--date=raw',
                commit,
            ])
        ).split('\0') as [string, string, string, ...string[]]
        tip = (
            await run(['commit-tree', tree, '-p', tip, '-F', '-'], {
                env: identityEnvironment({ name, email }, serverCommitter(), { author: date }),
                input: message.join('\0'),
            })
        ).trim()
    }
    return { tip, conflicts }
}
