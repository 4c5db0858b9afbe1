import { watch } from 'chokidar'
import type { Stats } from 'node:fs'
import { join, relative, sep } from 'node:path'
import { isIgnored } from '../content/load.js'

export type FolderWatcher = {
    /** Resolves once every folder is watched and what changed before is served. */
    ready: Promise<void>
    close(): Promise<void>
}

export type WatchOptions = {
    /** A batch closes after this long without a new event… */
    quietMs?: number
    /** …or this long after its first event, so a long burst still shows up step by step. */
    maxWaitMs?: number
    /**
     * When the folder was read (ms since the epoch): what the first scan finds changed since then
     * counts as a change, so nothing saved between the reading and the watching is lost.
     */
    readSince?: number
}

/** How far back a change time still counts as new: the file system's clock ticks coarser than the process's. */
const clockSlackMs = 100

const describeWatchError = (error: NodeJS.ErrnoException) =>
    error.code === 'ENOSPC'
        ? "cannot watch every folder: the system's limit of file watchers is reached (fs.inotify.max_user_watches; " +
          'Shelf needs one per folder). Changes in some folders will show only after a restart. ' +
          'Raise the limit (sudo sysctl fs.inotify.max_user_watches=1048576) or serve with --no-watch.'
        : `watching the folder failed (${error.message}); changes may show only after a restart`

/**
 * Watches a folder and hands over batches of changed paths (relative, `/`-separated). A burst,
 * such as `git checkout` of a branch or an editor's write-then-rename save, becomes one batch;
 * editor leftovers (swap, backup, temporary and dot files) never count as changes. Batches run
 * one at a time: changes arriving during one are gathered into the next.
 *
 * chokidar watches folders only, one watch each: a folder's watch reports every change of the
 * files in it (written, created, removed, renamed) as a raw event, so a file needs no watch of its
 * own, and a level costs one watch instead of one per file. Dot folders (the cache, .git) are not
 * watched at all. A folder is listed before its watch starts, so what chokidar's listing finds
 * changed lately is taken as a change too: a file saved in that moment, or into a folder that
 * just appeared, is not missed.
 */
export const watchFolder = (root: string, onBatch: (paths: string[]) => Promise<void>, options: WatchOptions = {}): FolderWatcher => {
    const quietMs = options.quietMs ?? 20
    const maxWaitMs = options.maxWaitMs ?? 200
    const readSince = options.readSince ?? Date.now()
    const pending = new Set<string>()
    let quietTimer: NodeJS.Timeout | undefined
    let batchStarted = 0
    let running: Promise<void> = Promise.resolve()
    let closed = false
    let scanned = false

    const flush = () => {
        clearTimeout(quietTimer)
        quietTimer = undefined
        const paths = [...pending]
        pending.clear()
        running = running.then(() => onBatch(paths)).catch((error: unknown) => console.error('shelf: reload failed:', error))
    }

    const note = (relativePath: string) => {
        if (closed || relativePath === '' || relativePath.split('/').some(isIgnored)) return
        if (pending.size === 0) batchStarted = Date.now()
        pending.add(relativePath)
        clearTimeout(quietTimer)
        const wait = Math.max(0, Math.min(quietMs, batchStarted + maxWaitMs - Date.now()))
        quietTimer = setTimeout(flush, wait)
    }
    const relativeTo = (path: string) => relative(root, path).split(sep).join('/')

    /** Every folder chokidar has listed, and those of them that appeared after the first scan. */
    const knownFolders = new Set<string>()
    const newFolders = new Set<string>()

    /** Whether a listed entry may hold a change no event reported: listed before its folder's watch began. */
    const unreported = (relativePath: string, stats: Stats) => {
        if (stats.isDirectory() && !knownFolders.has(relativePath)) {
            knownFolders.add(relativePath)
            if (scanned) newFolders.add(relativePath)
        }
        if (scanned) return newFolders.has(relativePath.slice(0, Math.max(0, relativePath.lastIndexOf('/'))))
        // The change time moves with every write, rename or move into place; a modification time need not.
        return stats.ctimeMs >= readSince - clockSlackMs
    }

    const watcher = watch(root, {
        ignoreInitial: true,
        // Called for every entry chokidar lists, with its stats once it has them.
        ignored: (path, stats) => {
            const relativePath = relativeTo(path)
            if (relativePath.split('/').some((segment) => segment.startsWith('.'))) return true
            if (stats && unreported(relativePath, stats)) note(relativePath)
            return stats?.isFile() ?? false
        },
    })
    watcher.on('raw', (_event, name, details) => {
        // A folder going away reports its own name; as a path below itself it names nothing, and its parent reports it too.
        const { watchedPath } = details as { watchedPath?: string }
        if (name && watchedPath) note(relativeTo(join(watchedPath, name)))
    })
    watcher.on('unlinkDir', (path) => {
        // Should it come back, it is new again.
        knownFolders.delete(relativeTo(path))
        newFolders.delete(relativeTo(path))
    })
    // A watcher error must never take the server down: say once what it means and keep serving.
    const reported = new Set<string>()
    watcher.on('error', (error) => {
        const code = (error as NodeJS.ErrnoException).code ?? 'unknown'
        if (reported.has(code)) return
        reported.add(code)
        console.error(`shelf: ${describeWatchError(error as NodeJS.ErrnoException)}`)
    })
    return {
        ready: new Promise((resolve) =>
            watcher.once('ready', () => {
                scanned = true
                // What the scan found changed is served before the watcher counts as ready.
                if (pending.size) flush()
                void running.then(resolve)
            }),
        ),
        close: async () => {
            closed = true
            clearTimeout(quietTimer)
            await watcher.close()
            await running
        },
    }
}
