import { randomBytes } from 'node:crypto'
import { existsSync } from 'node:fs'
import { mkdir, readdir, rename, rm, writeFile } from 'node:fs/promises'
import { dirname, join, relative, resolve, sep } from 'node:path'
import { isSafeName, type ItemRecord } from '../content/load.js'
import type { CatalogUpdates } from '../updates/catalog-updates.js'
import { writeFileAtomic } from '../util/atomic-write.js'

/**
 * A name for something a player makes: the time in base 36, so names sort by creation, and
 * random hex, so two at the same millisecond differ. Never derived from what the player typed.
 */
export const generatedName = () => `${Date.now().toString(36)}-${randomBytes(4).toString('hex')}`

/** The item's folder (`levels/x`), or its one file for a single-file post (`posts/x.md`). */
export const itemLocation = (item: ItemRecord) => {
    const parts = item.file.split('/')
    return parts.length === 2 ? { folder: undefined, file: item.file } : { folder: parts.slice(0, 2).join('/'), file: item.file }
}

/** Paths of every file below a folder, relative to the content root. */
const filesUnder = async (root: string, folder: string): Promise<string[]> => {
    const entries = await readdir(join(root, folder), { withFileTypes: true, recursive: true })
    return entries.filter((entry) => entry.isFile()).map((entry) => relative(root, join(entry.parentPath, entry.name)).split(sep).join('/'))
}

/**
 * Writes what players make into the content folder as ordinary files, atomically and on disk
 * before it returns, then has the catalog reload them, so every answer that follows sees them.
 * Every path is made of a type folder and names checked safe, and is checked to stay inside the
 * folder besides.
 */
export class ContentWriter {
    constructor(
        private readonly root: string,
        private readonly updates: CatalogUpdates,
    ) {}

    /**
     * A new item folder with its record and files. They are written into a hidden folder beside it
     * (the loader skips dot folders), which is then renamed into place: the item appears whole.
     */
    async createItem(typeFolder: string, name: string, files: Record<string, Buffer | string>) {
        const folder = this.inside(typeFolder, name)
        const staging = this.inside(typeFolder, `.${name}.${randomBytes(4).toString('hex')}.tmp`)
        await mkdir(staging, { recursive: true })
        try {
            for (const [fileName, bytes] of Object.entries(files)) await writeFile(join(staging, this.checked(fileName)), bytes, { flush: true })
            await rename(staging, folder)
        } catch (error) {
            await rm(staging, { recursive: true, force: true })
            throw error
        }
        const unit = `${typeFolder}/${name}`
        await this.updates.applyWritten([unit, ...(await filesUnder(this.root, unit))])
        return unit
    }

    /**
     * Writes files of an existing item (its record, a comment, a resource), each replaced whole,
     * and removes others (`bytes` undefined); then one reload takes them all in.
     */
    async updateFiles(changes: { path: string; bytes?: Buffer | string }[]) {
        const changed: string[] = []
        for (const { path, bytes } of changes) {
            const absolute = this.inside(...path.split('/'))
            if (bytes === undefined) {
                if (!existsSync(absolute)) continue
                await rm(absolute, { force: true })
            } else {
                // A folder made here (an item's first comment) is news the watcher will report too.
                const created = await mkdir(dirname(absolute), { recursive: true })
                if (created) changed.push(relative(this.root, created).split(sep).join('/'))
                await writeFileAtomic(absolute, bytes)
            }
            changed.push(path)
        }
        await this.updates.applyWritten(changed)
    }

    /** Removes an item folder: renamed out of sight in one step, then deleted. */
    async removeItem(typeFolder: string, name: string) {
        const unit = `${typeFolder}/${name}`
        const files = await filesUnder(this.root, unit)
        const trash = this.inside(typeFolder, `.${name}.${randomBytes(4).toString('hex')}.deleted`)
        await rename(this.inside(typeFolder, name), trash)
        await rm(trash, { recursive: true, force: true })
        await this.updates.applyWritten([unit, ...files])
    }

    private checked(name: string) {
        if (!isSafeName(name) && !/^\.[^/\\]+\.tmp$|^\.[^/\\]+\.deleted$/.test(name)) throw new Error(`unsafe name "${name}"`)
        return name
    }

    /** The absolute path of segments below the root, each a safe name, which must stay inside it. */
    private inside(...segments: string[]) {
        for (const segment of segments) this.checked(segment)
        const path = resolve(this.root, ...segments)
        if (!path.startsWith(`${resolve(this.root)}${sep}`)) throw new Error(`"${segments.join('/')}" is outside the content folder`)
        return path
    }
}
