import { readdirSync, statSync } from 'node:fs'
import type { Containment } from './containment.js'
import type { HashCache } from './hash-cache.js'

/**
 * The names a folder holds, files and subfolders apart (a link inside the content folder counts
 * as what it points at); other kinds of entry (sockets, say) are left out, and so are links that
 * lead outside, named in `outside`.
 */
export type FolderListing = { files: string[]; folders: string[]; outside?: string[] }

/**
 * What a folder holds, listed again only when its ctime moved since the cache remembered it: a
 * `stat` costs a fraction of a listing, and an item folder is listed at every start. A listing
 * with links is never remembered: where a link leads can change without its folder changing.
 * Throws as `readdirSync` does when the folder cannot be read.
 */
export const listFolder = (
    path: string,
    cache: HashCache,
    containment: Containment,
): FolderListing => {
    const info = statSync(path)
    const cached = cache.lookupListing(path, info)
    if (cached) return cached
    const listedAt = Date.now()
    const listing: FolderListing = { files: [], folders: [] }
    let links = false
    for (const entry of readdirSync(path, { withFileTypes: true })) {
        links ||= entry.isSymbolicLink()
        const kind = containment.kindOf(path, entry)
        if (kind === 'file') listing.files.push(entry.name)
        else if (kind === 'folder') listing.folders.push(entry.name)
        else if (kind === 'outside') (listing.outside ??= []).push(entry.name)
    }
    if (!links) cache.rememberListing(path, info, listing, listedAt)
    return listing
}
