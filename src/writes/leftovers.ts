import { lstat, readdir, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { isAtomicTemporary } from '../util/atomic-write.js'

/**
 * Removes what writes cut short by a crash or `kill -9` left behind: staging and trash folders
 * in the type folders, temporary files in item and comment folders (`seen`: the content folder's
 * own, as the start's load found them in the listings it made anyway, relative to `root`),
 * upload parts in the state folder, and the temporary files of the state folder's own writes
 * (its caches, in `stateFolders`), which a kill in the middle of a save leaves and no later save
 * reuses (each temporary name is new). Only names the writer makes, and only those older than
 * `before` (the start), so a write of this run is never touched; links are never followed.
 * Answers the paths removed.
 */
export const removeLeftovers = async ({
    root,
    seen,
    uploadFolder,
    stateFolders,
    before,
}: {
    root: string
    seen: readonly string[]
    /** None for a server whose players do not write. */
    uploadFolder: string | undefined
    stateFolders: readonly string[]
    before: number
}): Promise<string[]> => {
    const removed: string[] = []
    const removeIfOld = async (path: string, display: string) => {
        const info = await lstat(path).catch(() => undefined)
        if (!info || info.isSymbolicLink() || info.mtimeMs >= before) return
        await rm(path, { recursive: true, force: true })
        removed.push(display)
    }
    for (const path of seen) await removeIfOld(join(root, path), path)
    const entriesOf = async (folder: string | undefined) =>
        folder ? (await readdir(folder).catch(() => [])).map((entry) => join(folder, entry)) : []
    for (const path of await entriesOf(uploadFolder)) await removeIfOld(path, path)
    for (const folder of stateFolders)
        for (const path of await entriesOf(folder))
            if (isAtomicTemporary(path)) await removeIfOld(path, path)
    return removed
}
