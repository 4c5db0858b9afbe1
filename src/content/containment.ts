import { lstatSync, realpathSync, statSync, type Dirent, type Stats } from 'node:fs'
import { realpath } from 'node:fs/promises'
import { join, resolve, sep } from 'node:path'

/** What an entry of a folder is to Shelf; a link is what it points at, when that is inside. */
export type EntryKind = 'file' | 'folder' | 'other' | 'outside'

/**
 * Shelf reads and serves files inside its folders only (the content folder, and the state folder
 * for the bytes it made). A symbolic link is followed when its target lies inside the content
 * folder, so `levels/b/bgm.mp3 -> ../a/bgm.mp3` works; a link that leads outside (or nowhere) is
 * left out and reported, so that a link committed to the owner's git cannot publish
 * `/etc/passwd`. Listings decide it for each link they meet, and every file is checked again
 * where it is served, since a file can become a link after it was read.
 */
export class Containment {
    private readonly roots: string[]

    /** `content` first: links are followed only into it. */
    constructor(content: string, ...others: string[]) {
        this.roots = [content, ...others].map((root) => {
            const real = realOrGiven(root)
            return real.endsWith(sep) ? real : `${real}${sep}`
        })
    }

    /** The real path of a file to serve, when it is inside one of the folders (links resolved); else undefined. */
    async servable(path: string): Promise<string | undefined> {
        const real = await realpath(path).catch(() => undefined)
        return real !== undefined && this.roots.some((root) => real.startsWith(root))
            ? real
            : undefined
    }

    /** What a listed entry of `folder` (absolute) is; links are classified by their target. */
    kindOf(folder: string, entry: Dirent): EntryKind {
        return entry.isSymbolicLink() ? this.linkKind(join(folder, entry.name)) : plainKind(entry)
    }

    /** What the entry at `path` is (undefined when there is none), a link classified by its target. */
    kindAt(path: string): EntryKind | undefined {
        const info = lstatSync(path, { throwIfNoEntry: false })
        if (!info) return undefined
        return info.isSymbolicLink() ? this.linkKind(path) : plainKind(info)
    }

    private linkKind(path: string): EntryKind {
        let real: string
        try {
            real = realpathSync.native(path)
        } catch {
            return 'outside'
        }
        if (!real.startsWith(this.roots[0]!)) return 'outside'
        const info = statSync(real, { throwIfNoEntry: false })
        return info ? plainKind(info) : 'outside'
    }
}

/** The state folder may not be made yet; it is Shelf's own, so its given path stands. */
const realOrGiven = (root: string) => {
    try {
        return realpathSync.native(root)
    } catch {
        return resolve(root)
    }
}

const plainKind = (entry: Dirent | Stats): EntryKind =>
    entry.isFile() ? 'file' : entry.isDirectory() ? 'folder' : 'other'

export const outsideProblem =
    'a symbolic link that leads outside the content folder (or nowhere) is not followed'
