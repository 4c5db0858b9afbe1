import type { Catalog } from '../catalog/catalog.js'
import { formatProblem } from '../content/problems.js'
import type { ContentWriter } from './content-writer.js'

/** The writer, and the snapshot that serves what it wrote: a player's write is checked against it. */
export type WriteTarget = {
    writer: ContentWriter
    /** The snapshot served now: after a write, the one that holds it. */
    currentCatalog(): Catalog
}

/** The errors of one item's files in a snapshot, as a player can be shown them. */
export const unitErrors = (catalog: Catalog, unit: string) =>
    catalog.problems
        .filter(
            (problem) =>
                problem.severity === 'error' &&
                (problem.file === unit || problem.file.startsWith(`${unit}/`)),
        )
        .map(formatProblem)
