import { join } from 'node:path'
import type { FileChange, WriteChange } from '../writes/content-writer.js'
import { displayName } from '../auth/sessions.js'
import { noCommit, type ContentRepository } from './content-repository.js'
import { GitCommandError } from './git-command.js'
import type { GitProblems } from './git-problems.js'
import { identityEnvironment, oneLine, playerAuthor, serverCommitter } from './identity.js'

/** How often a commit is tried again when HEAD moved under it (the owner committed meanwhile). */
const attempts = 3

/**
 * Commits made with plumbing never run git's own housekeeping, which `git commit` runs: every
 * write leaves about six loose objects, so Shelf asks for it (`gc --auto`, which does nothing
 * until git's thresholds are reached, and then packs in the background) every so many commits.
 */
const housekeepingEvery = 100

/** git's mode of a regular file, and the entry `--index-info` reads as "remove this path". */
const fileMode = '100644'
const removal = `0 ${'0'.repeat(40)}`

/**
 * One commit per player write, holding exactly the files of that write as that write wrote
 * them (a later write to the same file, or the owner's edit, is not swept in). The commit is
 * built in Shelf's own index file (`GIT_INDEX_FILE`), so what the owner staged is never part of
 * it, and HEAD is moved only if it is still where the commit's parent is; then the owner's index
 * is told about the written paths only, so `git status` shows them committed and nothing else moves.
 */
export class WriteCommits {
    /**
     * HEAD as Shelf last saw it (its own last commit, mostly), whose tree its own index holds:
     * the next commit's parent. If HEAD moved since (the owner committed, a pull), moving HEAD
     * fails, and the commit is built again on the new HEAD.
     */
    private known: { commit?: string; tree?: string } | undefined
    private readonly indexEnvironment: Record<string, string>
    private sinceHousekeeping = 0

    constructor(
        private readonly repository: ContentRepository,
        private readonly problems: GitProblems,
        /** Called after each commit: pushing, when asked. */
        private readonly committed: () => void = () => {},
    ) {
        this.indexEnvironment = { GIT_INDEX_FILE: join(repository.gitDir, 'shelf-index') }
    }

    /** A pull moved HEAD: the next commit starts from it rather than finding out by failing. */
    headMoved() {
        this.known = undefined
    }

    /**
     * Commits a write's files (paths relative to the content folder). A failure is reported once
     * and swallowed: the write is on disk and served, and its answer must say so.
     */
    async commit(changes: FileChange[], change: WriteChange): Promise<string | undefined> {
        const message = oneLine(`${displayName(change.user)} ${change.did}`)
        const files = changes.map(({ path }) => path)
        try {
            const entries = await Promise.all(changes.map((file) => this.indexEntry(file)))
            const commit = await this.repository.exclusive(() =>
                this.commitNow(files, entries, message, change),
            )
            if (commit) {
                this.committed()
                if (++this.sinceHousekeeping >= housekeepingEvery) this.houseKeep()
            }
            return commit
        } catch (error) {
            this.known = undefined
            this.problems.report('commit', {
                file: files[0] ?? '.',
                message: `the write "${message}" is on disk and served, but it could not be committed (${(error as Error).message}); commit its files yourself: ${files.join(' ')}`,
                severity: 'error',
            })
            return undefined
        }
    }

    private houseKeep() {
        this.sinceHousekeeping = 0
        this.repository
            .exclusive(() => this.repository.run(['gc', '--auto', '--quiet']))
            .catch((error: Error) =>
                console.error(`shelf: git: housekeeping (git gc --auto) failed: ${error.message}`),
            )
    }

    /** A file's line for `update-index --index-info`: its bytes stored as a blob (through the owner's filters, git-lfs say), or its removal. */
    private async indexEntry({ path, bytes }: FileChange) {
        const topPath = `${this.repository.prefix}${path}`
        if (bytes === undefined) return `${removal}\t${topPath}\0`
        const blob = (
            await this.repository.run(['hash-object', '-w', '--stdin', `--path=${path}`], {
                input: bytes,
            })
        ).trim()
        return `${fileMode} ${blob}\t${topPath}\0`
    }

    private async commitNow(
        files: string[],
        entries: string[],
        message: string,
        change: WriteChange,
    ) {
        const { run } = this.repository
        const privateIndex = { env: this.indexEnvironment }
        for (let attempt = 1; ; attempt++) {
            if (!this.known) {
                this.known = await this.repository.head()
                await run(['read-tree', this.known.commit ?? '--empty'], privateIndex)
            }
            const { commit: parent, tree: parentTree } = this.known
            await run(['update-index', '-z', '--index-info'], {
                ...privateIndex,
                input: entries.join(''),
            })
            const tree = (await run(['write-tree'], privateIndex)).trim()
            if (tree === parentTree) {
                // A write undone before its answer (an edit that broke the item) leaves nothing to
                // commit, if HEAD is still the one this was compared with.
                if (attempt >= attempts || (await this.repository.head()).commit === parent)
                    return undefined
                this.known = undefined
                continue
            }
            const commit = (
                await run(['commit-tree', tree, ...(parent ? ['-p', parent] : []), '-m', message], {
                    env: identityEnvironment(playerAuthor(change.user), serverCommitter()),
                })
            ).trim()
            try {
                await run([
                    'update-ref',
                    '-m',
                    `shelf: ${message}`,
                    'HEAD',
                    commit,
                    parent ?? noCommit,
                ])
            } catch (error) {
                // HEAD moved since it was read: read it again and build the commit on it.
                this.known = undefined
                if (
                    attempt < attempts &&
                    error instanceof GitCommandError &&
                    (await this.repository.head()).commit !== parent
                )
                    continue
                throw error
            }
            this.known = { commit, tree }
            await this.syncOwnerIndex(files).catch((error: unknown) =>
                this.problems.report('commit', {
                    file: files[0] ?? '.',
                    message: `"${message}" is committed (${commit.slice(0, 12)}), but git's index could not be updated (${(error as Error).message}), so "git status" shows its files as changed: "git reset -- <files>" mends that`,
                    severity: 'warning',
                }),
            )
            return commit
        }
    }

    /** The owner's index gets HEAD's version of the written paths, and of no other path. */
    private async syncOwnerIndex(files: string[]) {
        await this.repository.run(
            [
                '--literal-pathspecs',
                'reset',
                '--quiet',
                '--pathspec-from-file=-',
                '--pathspec-file-nul',
            ],
            {
                input: files.map((file) => `${file}\0`).join(''),
            },
        )
    }
}
