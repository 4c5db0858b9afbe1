import type { ItemRecord } from '../content/load.js'

/** The default order of every list: newest first, then by name so that equal times stay stable. */
export const newestFirst = (a: ItemRecord, b: ItemRecord) =>
    (b.fields.time ?? -Infinity) - (a.fields.time ?? -Infinity) ||
    (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)
