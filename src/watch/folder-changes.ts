import { readdirSync, type Stats, statSync } from 'node:fs'
import { join } from 'node:path'
import { isIgnored } from '../content/ignored-names.js'

/** How far back a change time still counts as new: the file system's clock ticks coarser than the process's. */
const clockSlackMs = 100

/** A path's stats, or nothing when it is gone or cannot be stated (its watch, or its parent's, says what became of it). */
export const statsNow = (path: string) => {
    try {
        return statSync(path, { throwIfNoEntry: false })
    } catch {
        return undefined
    }
}

/** Whether a change time is past the reading of the folder (ms since the epoch). */
export const changedSince = (readSince: number, stats: Stats) =>
    // The change time moves with every write, rename or move into place; a modification time need not.
    stats.ctimeMs >= readSince - clockSlackMs

/** Where the first scan's listing of a folder puts what it finds. */
export type ScanFindings = {
    /** A subfolder, to be watched and listed in its turn. */
    folder(path: string): void
    /** The folder itself or a file in it, changed since the reading. */
    changed(path: string): void
}

/**
 * The first scan's look at a folder already watched (`folder`, relative to `root`, `/`-separated):
 * the folder itself if its change time is past the reading (an entry made, removed or renamed
 * in it), each of its files whose change time is (a file written in place moves only its own),
 * and its subfolders. Synchronous, for a thread of its own: a folder of a hundred thousand
 * levels is one call.
 */
export const scanFolder = (
    root: string,
    folder: string,
    readSince: number,
    findings: ScanFindings,
) => {
    const path = join(root, folder)
    const itself = statsNow(path)
    if (!itself) return
    if (changedSince(readSince, itself)) findings.changed(folder)
    let entries
    try {
        entries = readdirSync(path, { withFileTypes: true })
    } catch {
        // Gone or unreadable: its watch, or its parent's, says what became of it.
        return
    }
    for (const entry of entries) {
        if (isIgnored(entry.name)) continue
        const child = `${folder}/${entry.name}`
        if (entry.isDirectory()) findings.folder(child)
        else {
            const stats = statsNow(join(path, entry.name))
            if (stats && changedSince(readSince, stats)) findings.changed(child)
        }
    }
}
