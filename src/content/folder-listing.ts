import { readdirSync, statSync } from 'node:fs'
import type { HashCache } from './hash-cache.js'

/** The names a folder holds, files and subfolders apart; other kinds of entry (links, say) are left out. */
export type FolderListing = { files: string[]; folders: string[] }

/**
 * What a folder holds, listed again only when its ctime moved since the cache remembered it: a
 * `stat` costs a fraction of a listing, and an item folder is listed at every start.
 * Throws as `readdirSync` does when the folder cannot be read.
 */
export const listFolder = (path: string, cache: HashCache): FolderListing => {
    const info = statSync(path)
    const cached = cache.lookupListing(path, info)
    if (cached) return cached
    const listedAt = Date.now()
    const entries = readdirSync(path, { withFileTypes: true })
    const listing = {
        files: entries.filter((entry) => entry.isFile()).map((entry) => entry.name),
        folders: entries.filter((entry) => entry.isDirectory()).map((entry) => entry.name),
    }
    cache.rememberListing(path, info, listing, listedAt)
    return listing
}
