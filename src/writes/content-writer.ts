import { AsyncLocalStorage } from 'node:async_hooks'
import { randomBytes } from 'node:crypto'
import { existsSync, lstatSync, realpathSync } from 'node:fs'
import { mkdir, readdir, rename, rm, writeFile } from 'node:fs/promises'
import { dirname, join, relative, resolve, sep } from 'node:path'
import type { SessionUser } from '../auth/sessions.js'
import { unitKeyOfPath } from '../content/content-state.js'
import { isSafeName, type ItemRecord } from '../content/load.js'
import type { CatalogUpdates } from '../updates/catalog-updates.js'
import { writeFileAtomic } from '../util/atomic-write.js'
import { Refusal } from '../util/refusal.js'
import { ItemLocks } from './item-lock.js'
import { asideName, isAsideName } from '../util/write-leftovers.js'

/**
 * A name for something a player makes: the time in base 36, so names sort by creation, and
 * random hex, so two at the same millisecond differ. Never derived from what the player typed.
 */
export const generatedName = () => `${Date.now().toString(36)}-${randomBytes(4).toString('hex')}`

/** The item's folder (`levels/x`), or its one file for a single-file post (`posts/x.md`). */
export const itemLocation = (item: ItemRecord) => {
    const unit = unitKeyOfPath(item.file)
    // A single-file post is a unit of its own, with no folder around it.
    return { folder: unit === item.file ? undefined : unit, file: item.file }
}

/** Paths of every file below a folder, relative to the content root. */
const filesUnder = async (root: string, folder: string): Promise<string[]> => {
    const entries = await readdir(join(root, folder), { withFileTypes: true, recursive: true })
    return entries
        .filter((entry) => entry.isFile())
        .map((entry) => relative(root, join(entry.parentPath, entry.name)).split(sep).join('/'))
}

/** A change of one file: new bytes, or its removal (`bytes` undefined); `required` refuses the removal of a file already gone. */
export type FileChange = { path: string; bytes?: Buffer | string; required?: boolean }

/** Who made a write, and what they did, in words that follow their name: `commented on levels/x`. */
export type WriteChange = { user: SessionUser; did: string }

/**
 * Told the files of each player's write (as written: bytes, or undefined for a removal) once
 * they are on disk and served, before the answer: git commits them.
 */
export type WrittenHook = (files: FileChange[], change: WriteChange) => Promise<unknown>

/**
 * Writes what players make into the content folder as ordinary files, atomically and on disk
 * before it returns, then has the catalog reload them, so every answer that follows sees them.
 * Every path is made of a type folder and names checked safe, and is checked to stay inside the
 * folder besides.
 *
 * One writer at a time per item: every write to an item waits its turn, and when its turn comes
 * the item must still be there, or the write is refused as not found (a comment or an edit that
 * lost the race against a delete, a second delete): a write never brings back an item that a
 * delete before it removed.
 */
export class ContentWriter {
    private readonly locks = new ItemLocks()
    /** The root as links resolve it: a folder reached through a link must land below it. */
    private readonly realRoot: string
    /** The files written so far by the player's write running now, with what each holds. */
    private readonly writing = new AsyncLocalStorage<Map<string, FileChange>>()

    constructor(
        private readonly root: string,
        private readonly updates: CatalogUpdates,
        private readonly written?: WrittenHook,
    ) {
        this.realRoot = realpathSync.native(root)
    }

    /**
     * Runs one player's write, however many steps it takes (an undo included), and tells the
     * hook its files once, after the last step and before the answer. The bytes are those this
     * write wrote, whatever a later write has put in the file since.
     */
    async as<T>(change: WriteChange, write: () => Promise<T>): Promise<T> {
        if (!this.written) return write()
        const files = new Map<string, FileChange>()
        try {
            return await this.writing.run(files, write)
        } finally {
            if (files.size) await this.written([...files.values()], change)
        }
    }

    private record(changes: FileChange[]) {
        const files = this.writing.getStore()
        if (files) for (const { path, bytes } of changes) files.set(path, { path, bytes })
    }

    /**
     * Runs `write` as the one writer of an item (`levels/x`, `posts/x.md`), once the item is
     * still there: for a read-modify-write such as an edit, whose reads must see what the writes
     * before it left. The writer's own methods called inside do not wait again.
     */
    withItem<T>(unit: string, write: () => Promise<T>): Promise<T> {
        return this.run([unit], async () => {
            this.requireItem(unit)
            return write()
        })
    }

    /**
     * A new item folder with its record and files. They are written into a hidden folder beside it
     * (the loader skips dot folders), which is then renamed into place: the item appears whole.
     */
    async createItem(typeFolder: string, name: string, files: Record<string, Buffer | string>) {
        const unit = `${typeFolder}/${name}`
        return this.run([unit], async () => {
            const folder = this.inside(typeFolder, name)
            if (existsSync(folder)) throw new Refusal('conflict', `${unit} already exists`)
            // The first item of a type makes its folder, which must then be one inside the content folder.
            await mkdir(this.inside(typeFolder), { recursive: true })
            this.requireReallyInside(this.inside(typeFolder), typeFolder)
            const staging = this.inside(typeFolder, asideName(name, 'tmp'))
            await mkdir(staging, { recursive: true })
            try {
                for (const [fileName, bytes] of Object.entries(files))
                    await writeFile(join(staging, this.checked(fileName)), bytes, { flush: true })
                await rename(staging, folder)
            } catch (error) {
                await rm(staging, { recursive: true, force: true })
                throw error
            }
            this.record(
                Object.entries(files).map(([fileName, bytes]) => ({
                    path: `${unit}/${fileName}`,
                    bytes,
                })),
            )
            await this.updates.applyWritten([unit, ...(await filesUnder(this.root, unit))])
            return unit
        })
    }

    /**
     * Writes files of existing items (a record, a comment, a resource), each replaced whole,
     * and removes others (`bytes` undefined); then one reload takes them all in.
     */
    async updateFiles(changes: FileChange[]) {
        const units = [...new Set(changes.map(({ path }) => unitKeyOfPath(path)))]
        await this.run(units, async () => {
            for (const unit of units) this.requireItem(unit)
            for (const unit of units)
                this.requireReallyInside(this.inside(...unit.split('/')), unit)
            const changed: string[] = []
            for (const { path, bytes, required } of changes) {
                const absolute = this.inside(...path.split('/'))
                if (bytes === undefined) {
                    if (!existsSync(absolute)) {
                        if (required) throw new Refusal('not-found', `${path} is already gone`)
                        continue
                    }
                    await rm(absolute, { force: true })
                } else {
                    // A folder made here (an item's first comment) is news the watcher will report too.
                    const created = await mkdir(dirname(absolute), { recursive: true })
                    if (created) changed.push(relative(this.root, created).split(sep).join('/'))
                    this.requireReallyInside(dirname(absolute), path)
                    await writeFileAtomic(absolute, bytes)
                }
                changed.push(path)
                this.record([{ path, bytes }])
            }
            await this.updates.applyWritten(changed)
        })
    }

    /** Removes an item folder: renamed out of sight in one step, then deleted. */
    async removeItem(typeFolder: string, name: string) {
        const unit = `${typeFolder}/${name}`
        await this.run([unit], async () => {
            this.requireItem(unit)
            const files = await filesUnder(this.root, unit)
            const trash = this.inside(typeFolder, asideName(name, 'deleted'))
            await rename(this.inside(typeFolder, name), trash)
            await rm(trash, { recursive: true, force: true })
            this.record(files.map((path) => ({ path })))
            await this.updates.applyWritten([unit, ...files])
        })
    }

    /** One writer at a time per item, whose own files the watcher's reports meanwhile are not taken for news. */
    private run<T>(units: string[], write: () => Promise<T>) {
        return this.locks.run(units, () => this.updates.duringWrite(units, write))
    }

    /** An item another write removed while this one waited is not found, as it would be had it come later. */
    private requireItem(unit: string) {
        if (!lstatSync(this.inside(...unit.split('/')), { throwIfNoEntry: false }))
            throw new Refusal('not-found', `${unit} is gone: it was deleted`)
    }

    /** A folder (or file) written into must not be a link, or below one, that leads outside the content folder. */
    private requireReallyInside(folder: string, what: string) {
        if (!`${realpathSync.native(folder)}${sep}`.startsWith(`${this.realRoot}${sep}`)) {
            throw new Refusal(
                'forbidden',
                `${what} leads outside the content folder through a symbolic link: Shelf does not write there`,
            )
        }
    }

    private checked(name: string) {
        if (!isSafeName(name) && !isAsideName(name)) throw new Error(`unsafe name "${name}"`)
        return name
    }

    /** The absolute path of segments below the root, each a safe name, which must stay inside it. */
    private inside(...segments: string[]) {
        for (const segment of segments) this.checked(segment)
        const path = resolve(this.root, ...segments)
        if (!path.startsWith(`${resolve(this.root)}${sep}`))
            throw new Error(`"${segments.join('/')}" is outside the content folder`)
        return path
    }
}
