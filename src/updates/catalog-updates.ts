import { statSync } from 'node:fs'
import { join } from 'node:path'

/** What a file looked like when Shelf wrote it, to know the watcher's report of it is no news. */
const fingerprint = (root: string, path: string) => {
    try {
        const info = statSync(join(root, path))
        return `${info.size}:${info.mtimeMs}`
    } catch {
        return 'gone'
    }
}

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
    private readonly written = new Map<string, string>()

    constructor(
        private readonly root: string,
        private readonly reload: (paths: string[]) => Promise<void>,
        /** Without a watcher nobody reports Shelf's writes back, so there is nothing to remember. */
        private readonly watched: boolean,
    ) {}

    /** Paths (relative, `/`-separated) Shelf has just written or removed; resolves once they are served. */
    applyWritten(paths: string[]) {
        if (this.watched) for (const path of paths) this.written.set(path, fingerprint(this.root, path))
        return this.enqueue(paths)
    }

    /** Paths the watcher reports; those still as Shelf wrote them are already loaded. */
    applyWatched(paths: string[]) {
        const news = paths.filter((path) => {
            const wrote = this.written.get(path)
            if (wrote === undefined) return true
            this.written.delete(path)
            return wrote !== fingerprint(this.root, path)
        })
        return news.length ? this.enqueue(news) : Promise.resolve()
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
