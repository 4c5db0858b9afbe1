import { randomBytes } from 'node:crypto'
import { readdir, rm, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { commentsFolder } from '../content/comment-file.js'
import { contentTypeInfos, contentTypes } from '../content/item-types.js'
import { isAtomicTemporary } from '../util/atomic-write.js'
import { mapLimit } from '../util/map-limit.js'

/**
 * The hidden folder beside an item the writer works in: `.x.<hex>.tmp` while a new item is
 * staged, `.x.<hex>.deleted` while a removed one is emptied. The loader skips dot folders.
 */
export const asideName = (name: string, purpose: 'tmp' | 'deleted') =>
    `.${name}.${randomBytes(4).toString('hex')}.${purpose}`

export const isAsideName = (name: string) =>
    /^\.[A-Za-z0-9._~-]+\.[0-9a-f]{8}\.(tmp|deleted)$/.test(name)

/** Enough parallel listings to keep the disk busy without exhausting file descriptors. */
const concurrency = 16

/**
 * Removes what writes cut short by a crash or `kill -9` left behind: staging and trash folders
 * in the type folders, temporary files in item and comment folders, and upload parts in the
 * state folder. Only names the writer makes, and only those older than `before` (the start), so
 * a write of this run is never touched; links are never followed. Answers the paths removed.
 */
export const removeLeftovers = async (
    root: string,
    uploadFolder: string,
    before: number,
): Promise<string[]> => {
    const removed: string[] = []
    const removeIfOld = async (folder: string, name: string, display: string) => {
        const path = join(folder, name)
        const info = await stat(path).catch(() => undefined)
        if (!info || info.mtimeMs >= before) return
        await rm(path, { recursive: true, force: true })
        removed.push(display)
    }
    const entries = async (folder: string) =>
        readdir(folder, { withFileTypes: true }).catch(() => [])
    const clean = async (relative: string, depth: number): Promise<void> => {
        const folder = join(root, relative)
        for (const entry of await entries(folder)) {
            const path = `${relative}/${entry.name}`
            if (entry.isDirectory() && isAsideName(entry.name))
                await removeIfOld(folder, entry.name, path)
            else if (entry.isFile() && isAtomicTemporary(entry.name))
                await removeIfOld(folder, entry.name, path)
            else if (entry.isDirectory() && depth > 0 && !entry.name.startsWith('.'))
                await clean(path, entry.name === commentsFolder ? 0 : depth - 1)
        }
    }
    // Type folder → item folder → its comments: where the writer writes.
    await mapLimit(contentTypes, concurrency, (type) => clean(contentTypeInfos[type].plural, 2))
    for (const entry of await entries(uploadFolder))
        await removeIfOld(uploadFolder, entry.name, join(uploadFolder, entry.name))
    return removed
}
