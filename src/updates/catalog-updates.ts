import { statSync } from 'node:fs'
import { join } from 'node:path'
import { unitKeyOfPath } from '../content/content-state.js'

/** What a file looked like when Shelf wrote it, to know the watcher's report of it is no news. */
const fingerprint = (root: string, path: string) => {
    try {
        const info = statSync(join(root, path))
        return `${info.size}:${info.mtimeMs}`
    } catch {
        return 'gone'
    }
}

/** How long a write of Shelf's is remembered: its reports come within the watcher's delays. */
const rememberWritesMs = 60_000

/**
 * The one way changes enter the catalog, whether the watcher saw them or Shelf wrote them: one
 * reload at a time, and changes that arrive during a reload are coalesced into the next. A write
 * by Shelf is reloaded at once (its answer waits for the new snapshot to be served), and the
 * watcher's later report of the same bytes is dropped rather than loaded twice.
 */
export class CatalogUpdates {
    private readonly pending = new Set<string>()
    private next: Promise<void> | undefined
    private running: Promise<void> = Promise.resolve()
    /**
     * What Shelf wrote, kept a while: the watcher may report one write more than once (a file
     * made by a rename, then its change), and every such report is no news.
     */
    private readonly written = new Map<string, { fingerprint: string; at: number }>()
    /** Items (`levels/x`) Shelf is writing now, by how many writes hold each. */
    private readonly writing = new Map<string, number>()
    /** What the watcher reported inside an item while Shelf was writing it. */
    private heldBack: string[] = []

    constructor(
        private readonly root: string,
        private readonly reload: (paths: string[]) => Promise<void>,
        /** Without a watcher nobody reports Shelf's writes back, so there is nothing to remember. */
        private readonly watched: boolean,
    ) {}

    /** Paths (relative, `/`-separated) Shelf has just written or removed; resolves once they are served. */
    applyWritten(paths: string[]) {
        if (this.watched) {
            const now = Date.now()
            for (const [path, { at }] of this.written)
                if (now - at > rememberWritesMs) this.written.delete(path)
            for (const path of paths)
                this.written.set(path, { fingerprint: fingerprint(this.root, path), at: now })
        }
        return this.enqueue(paths)
    }

    /**
     * Runs a write of Shelf's to these items. The watcher can report a file or folder of the
     * write (an item's new `comments/`) before the write is done and says what it wrote; such
     * reports wait for the end of the write, so that they are known for what they are.
     */
    async duringWrite<T>(units: string[], write: () => Promise<T>): Promise<T> {
        for (const unit of units) this.writing.set(unit, (this.writing.get(unit) ?? 0) + 1)
        try {
            return await write()
        } finally {
            for (const unit of units) {
                const holders = this.writing.get(unit)! - 1
                if (holders) this.writing.set(unit, holders)
                else this.writing.delete(unit)
            }
            const released = this.heldBack.filter((path) => !this.isBeingWritten(path))
            this.heldBack = this.heldBack.filter((path) => this.isBeingWritten(path))
            if (released.length) void this.applyWatched(released).catch(() => undefined)
        }
    }

    /** Paths the watcher reports; those still as Shelf wrote them are already loaded. */
    applyWatched(paths: string[]) {
        const news = paths.filter((path) => {
            if (this.isBeingWritten(path)) {
                this.heldBack.push(path)
                return false
            }
            const wrote = this.written.get(path)
            if (wrote === undefined) return true
            if (wrote.fingerprint === fingerprint(this.root, path)) return false
            this.written.delete(path)
            return true
        })
        return news.length ? this.enqueue(news) : Promise.resolve()
    }

    private isBeingWritten(path: string) {
        return this.writing.size > 0 && this.writing.has(unitKeyOfPath(path))
    }

    private enqueue(paths: string[]) {
        for (const path of paths) this.pending.add(path)
        this.next ??= this.running.then(() => {
            const batch = [...this.pending]
            this.pending.clear()
            this.next = undefined
            return this.reload(batch)
        })
        this.running = this.next.catch(() => undefined)
        return this.next
    }
}
