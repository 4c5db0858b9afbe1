import { lstat, readdir, rm } from 'node:fs/promises'
import { join } from 'node:path'

/**
 * Removes what writes cut short by a crash or `kill -9` left behind: staging and trash folders
 * in the type folders, temporary files in item and comment folders (`seen`: the content folder's
 * own, as the start's load found them in the listings it made anyway, relative to `root`), and
 * upload parts in the state folder. Only names the writer makes, and only those older than
 * `before` (the start), so a write of this run is never touched; links are never followed.
 * Answers the paths removed.
 */
export const removeLeftovers = async (
    root: string,
    seen: readonly string[],
    uploadFolder: string,
    before: number,
): Promise<string[]> => {
    const removed: string[] = []
    const removeIfOld = async (path: string, display: string) => {
        const info = await lstat(path).catch(() => undefined)
        if (!info || info.isSymbolicLink() || info.mtimeMs >= before) return
        await rm(path, { recursive: true, force: true })
        removed.push(display)
    }
    for (const path of seen) await removeIfOld(join(root, path), path)
    for (const entry of await readdir(uploadFolder).catch(() => []))
        await removeIfOld(join(uploadFolder, entry), join(uploadFolder, entry))
    return removed
}
