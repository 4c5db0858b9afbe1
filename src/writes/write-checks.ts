import type { Catalog } from '../catalog/catalog.js'
import type { ContentType } from '../content/item-types.js'
import { formatProblem } from '../content/problems.js'
import { Refusal } from '../util/refusal.js'
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

/**
 * After a player's item is written and reloaded, it must be served; if its files have a problem
 * (say, a form that gives no engine while levels need one) they are removed again and the
 * problem is the answer, so nothing half-made stays in the folder.
 */
export const requireServed = async (
    target: WriteTarget,
    type: ContentType,
    name: string,
    unit: string,
) => {
    const catalog = target.currentCatalog()
    if (catalog.get(type, name)) return
    const errors = unitErrors(catalog, unit)
    await target.writer.removeItem(...(unit.split('/') as [string, string]))
    throw new Refusal(
        'invalid',
        `the new ${type} was not accepted: ${errors.join('; ') || 'it could not be loaded'}`,
    )
}
