import { patchSorted, type Order } from '../util/sorted-list.js'
import type { Problem } from './problems.js'

/** What reading one file gave: its record, or none (gone, not of the kind, or with problems). */
export type FileOutcome<T> = { file: string; value?: T; problems: Problem[] }

/**
 * The records the files of one folder of an item give (its comments, its leaderboards), kept by
 * file with each file's problems, so that a change of one file is read alone and patched into
 * the sorted list the item serves: a comment on an item of ten thousand costs one file's read
 * and a copy of the list, never a read of the other files.
 */
export class FileRecords<T> {
    private readonly values = new Map<string, T>()
    private readonly fileProblems = new Map<string, Problem[]>()
    /** The records in the order they are served: a new array after every change, never changed itself. */
    sorted: readonly T[] = []

    constructor(private readonly order: Order<T>) {}

    /** The files that gave a record or a problem. */
    files() {
        return new Set([...this.values.keys(), ...this.fileProblems.keys()])
    }

    /** Takes in what some files give now; a file without a value gives nothing any more. */
    update(outcomes: readonly FileOutcome<T>[]) {
        const removed: T[] = []
        const added: T[] = []
        for (const { file, value, problems } of outcomes) {
            const before = this.values.get(file)
            if (before !== undefined) removed.push(before)
            if (value === undefined) this.values.delete(file)
            else {
                this.values.set(file, value)
                added.push(value)
            }
            if (problems.length) this.fileProblems.set(file, problems)
            else this.fileProblems.delete(file)
        }
        this.sorted = patchSorted(this.sorted, removed, added, this.order)
    }

    problems(): Problem[] {
        return [...this.fileProblems.values()].flat()
    }
}
