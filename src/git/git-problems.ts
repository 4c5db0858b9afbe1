import type { Problem } from '../content/problems.js'

/** What went wrong with git, by kind, so a later success of the same kind can clear it. */
export type GitProblemKind = 'commit' | 'pull' | 'push'

/**
 * Problems of git beside those of the content, for /_shelf/problems: each is logged once when
 * it happens (the same failure again is not news). A failed pull or push is cleared by the next one that works; a failed commit stays
 * (its files wait, uncommitted, for the owner) until the server restarts.
 */
export class GitProblems {
    private readonly reported: { kind: GitProblemKind; problem: Problem }[] = []
    /** The most kept; a server whose remote is down for a week must not grow a list without end. */
    private static readonly kept = 50

    report(kind: GitProblemKind, problem: Problem) {
        // A remote that stays down fails every pull the same way: said once, until it is cleared.
        if (
            this.reported.some(
                (entry) => entry.kind === kind && entry.problem.message === problem.message,
            )
        )
            return
        console.error(`shelf: git: ${problem.file}: ${problem.message}`)
        this.reported.push({ kind, problem })
        if (this.reported.length > GitProblems.kept) this.reported.shift()
    }

    clear(kind: GitProblemKind) {
        for (let index = this.reported.length - 1; index >= 0; index--)
            if (this.reported[index]!.kind === kind) this.reported.splice(index, 1)
    }

    list(): Problem[] {
        return this.reported.map(({ problem }) => problem)
    }
}
