import type { ContentType } from './item-types.js'

/**
 * A problem found in the content folder. Problems never stop the server: the file (or the item,
 * comment or leaderboard it belongs to) is left out and the problem is reported, so the owner
 * can fix it while everything else keeps serving.
 */
export type Problem = {
    /** Path relative to the content folder, with `/` separators. */
    file: string
    line?: number
    column?: number
    /** Where in the record, e.g. `tags[0].title`; absent for whole-file problems. */
    field?: string
    message: string
    /** `error` leaves the thing out; `warning` only informs. */
    severity: 'error' | 'warning'
    /**
     * A name in a reference field of a record that failed validation, so that one run reports
     * every mistake of the file: the catalog drops the problem when the name serves and
     * otherwise puts why it does not before the message (which holds only what follows).
     */
    reference?: { type: ContentType; name: string }
}

export const formatProblem = (problem: Problem): string => {
    const position =
        problem.line === undefined
            ? ''
            : `:${problem.line}${problem.column === undefined ? '' : `:${problem.column}`}`
    const field = problem.field ? `${problem.field}: ` : ''
    return `${problem.severity} ${problem.file}${position}  ${field}${problem.message}`
}

/** Thrown while reading one file; the loader turns it into a Problem for that file. */
export class ContentError extends Error {
    constructor(
        message: string,
        readonly position: { line?: number; column?: number; field?: string } = {},
    ) {
        super(message)
    }
}
