import { randomBytes } from 'node:crypto'
import { copyFile, mkdir, readdir, readFile, rename, rm, rmdir, stat } from 'node:fs/promises'
import { dirname, join, relative, sep } from 'node:path'
import { readSlice, type PackSlice } from '../content/made-pack.js'
import { writeFileAtomic } from '../util/atomic-write.js'

/** What one export did to its folder, for the terminal and for scripts that sync it. */
export type OutputReport = {
    written: number
    unchanged: number
    removed: number
    /** Bytes of the files written: what a sync uploads. */
    writtenBytes: number
    /** The first few paths written or removed, to show what changed. */
    changes: string[]
}

/** How many changed paths a report names; the counts say the rest. */
const namedChanges = 20

/**
 * A folder written incrementally: a file whose bytes are already there is left alone (so its
 * modification time stays, and a sync uploads only what changed), every write is atomic, and
 * whatever the export no longer produces is removed at the end.
 */
export class OutputFolder {
    private readonly produced = new Set<string>()
    private readonly madeFolders = new Set<string>()
    readonly report: OutputReport = {
        written: 0,
        unchanged: 0,
        removed: 0,
        writtenBytes: 0,
        changes: [],
    }

    constructor(readonly root: string) {}

    /** Writes `bytes` at `path` (relative, `/`-separated) unless the file holds them already. */
    async put(path: string, bytes: Buffer) {
        const target = this.claim(path)
        const existing = await readFile(target).catch(() => undefined)
        if (existing?.equals(bytes)) return void this.report.unchanged++
        await this.folderOf(target)
        await writeFileAtomic(target, bytes, { flush: false })
        this.wrote(path, bytes.length)
    }

    /**
     * Copies a file whose name says its bytes (a resource by hash), or a slice of one (a pack):
     * one already there of its size is the same.
     */
    async putNamedByContent(path: string, source: string, slice?: PackSlice) {
        const target = this.claim(path)
        const [existing, size] = await Promise.all([
            stat(target).catch(() => undefined),
            slice?.length ?? stat(source).then((info) => info.size),
        ])
        if (existing?.isFile() && existing.size === size) return void this.report.unchanged++
        await this.folderOf(target)
        if (slice) await writeFileAtomic(target, await readSlice(source, slice), { flush: false })
        else {
            const temporary = `${target}.${randomBytes(6).toString('hex')}.tmp`
            try {
                await copyFile(source, temporary)
                await rename(temporary, target)
            } catch (error) {
                await rm(temporary, { force: true })
                throw error
            }
        }
        this.wrote(path, size)
    }

    /** Removes every file under `folder` this export did not produce (and the folders left empty): old answers, leftovers of an interrupted run. */
    async removeUnproduced(folder: string) {
        await this.sweep(join(this.root, folder))
    }

    private async sweep(folder: string): Promise<boolean> {
        const entries = await readdir(folder, { withFileTypes: true }).catch(() => [])
        let kept = 0
        for (const entry of entries) {
            const path = join(folder, entry.name)
            const relativePath = relative(this.root, path).split(sep).join('/')
            if (entry.isDirectory() ? await this.sweep(path) : this.produced.has(relativePath)) {
                kept++
                continue
            }
            if (!entry.isDirectory()) {
                await rm(path, { force: true })
                this.report.removed++
                this.note(relativePath)
            }
        }
        if (kept === 0) await rmdir(folder).catch(() => undefined)
        return kept > 0
    }

    private claim(path: string) {
        if (this.produced.has(path))
            throw new Error(`two answers of the export would be written to ${path}`)
        this.produced.add(path)
        return join(this.root, ...path.split('/'))
    }

    private async folderOf(target: string) {
        const folder = dirname(target)
        if (this.madeFolders.has(folder)) return
        await mkdir(folder, { recursive: true })
        this.madeFolders.add(folder)
    }

    private wrote(path: string, bytes: number) {
        this.report.written++
        this.report.writtenBytes += bytes
        this.note(path)
    }

    private note(path: string) {
        if (this.report.changes.length < namedChanges) this.report.changes.push(path)
    }
}
