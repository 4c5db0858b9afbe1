import { type FSWatcher as RootWatch, watch as watchRootFolder } from 'chokidar'
import { readdirSync, type Stats } from 'node:fs'
import { realpath } from 'node:fs/promises'
import { relative, sep } from 'node:path'
import { isIgnored } from '../content/ignored-names.js'
import type { ServedRequests } from '../util/served-requests.js'
import { startWorker } from '../util/start-worker.js'
import { changedSince } from './folder-changes.js'
import { type FolderWatches, watchFolders, type WatchReports } from './folder-watches.js'
import type { WatchAnswer, WatchRequest, WatchWorkerData } from './watch-worker.js'

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
    /** The serving thread's count of requests: a large catalog's first scan rests while it moves. */
    served?: ServedRequests
}

const describeWatchError = (error: Parameters<WatchReports['failed']>[0]) =>
    error.code === 'ENOSPC'
        ? "cannot watch every folder: the system's limit of file watchers is reached (fs.inotify.max_user_watches; " +
          'Shelf needs one per folder). Changes in some folders will show only after a restart. ' +
          'Raise the limit (sudo sysctl fs.inotify.max_user_watches=1048576) or serve with --no-watch.'
        : `watching the folder failed (${error.message}); changes may show only after a restart`

/**
 * The root's folders, listed, decide where the watches below them run: if one of them outgrows
 * one block (4 KB: on ext4 a hundred entries or so; a type folder of a hundred thousand levels),
 * the catalog is large, and they run on a worker thread of their own (watch-worker.ts); if not,
 * here, where the few there are cost less than a thread.
 */
const oneReadBytes = 4096
/** How long the first scan holds this thread's loop between turns when it runs here. */
const scanSliceMs = 1

/**
 * Watches a folder and hands over batches of changed paths (relative, `/`-separated). A burst,
 * such as `git checkout` of a branch or an editor's write-then-rename save, becomes one batch;
 * editor leftovers (swap, backup, temporary and dot files) never count as changes. Batches run
 * one at a time: changes arriving during one are gathered into the next.
 *
 * Folders are watched, one watch each, not files: a folder's watch reports every change of the
 * entries in it (written, created, removed, renamed). The content folder itself (server settings,
 * type folders appearing and going) is watched by chokidar; every folder below it (the type
 * folders, the items, their comments, leaderboards and whatever else they hold) by Node's own
 * `fs.watch` (folder-watches.ts), on a worker thread for a large catalog. A real catalog holds
 * its items by the hundred thousand, and chokidar's bookkeeping of a watched folder costs about
 * 3.2 KB and 30 objects: at 100,000 folders a third of the heap, which made the collector's
 * marking steps long enough to show in requests' latency. Node's watch with the note of it keeps
 * about 0.7 KB a folder. It also names the entry that changed, where chokidar lists the folder
 * again and states every entry (a comment into ten thousand, ten thousand stats).
 */
export const watchFolder = (
    root: string,
    onBatch: (paths: string[]) => Promise<void>,
    options: WatchOptions = {},
): FolderWatcher => {
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
        running = running
            .then(() => onBatch(paths))
            .catch((error: unknown) => console.error('shelf: reload failed:', error))
    }

    const note = (relativePath: string) => {
        if (closed || relativePath === '' || relativePath.split('/').some(isIgnored)) return
        if (pending.size === 0) batchStarted = Date.now()
        pending.add(relativePath)
        clearTimeout(quietTimer)
        const wait = Math.max(0, Math.min(quietMs, batchStarted + maxWaitMs - Date.now()))
        quietTimer = setTimeout(flush, wait)
    }

    let endScan = () => {}
    const scanOver = new Promise<void>((resolve) => (endScan = resolve))

    // A watch error must never take the server down: say once what it means and keep serving.
    const reported = new Set<string>()
    const reports: WatchReports = {
        changed: note,
        failed: (error) => {
            const code = error.code ?? 'unknown'
            if (reported.has(code)) return
            reported.add(code)
            console.error(`shelf: ${describeWatchError(error)}`)
        },
        scanned: () => {
            scanned = true
            endScan()
        },
    }

    /**
     * The folder as chokidar is handed it: its real path, so that chokidar, which resolves the
     * folder it watches, finds no symbolic link on the way.
     */
    let watchRoot = root
    /** The watches below the root, started once the root is listed (`oneReadBytes`). */
    let watches: FolderWatches | undefined
    /** What the root's watch found before: its folders, and the entries its events named. */
    const rootFolders: string[] = []
    const rootEvents: [name: string, event: string][] = []
    let largeCatalog = false

    /** Starts the watches of the root's folders, listed. */
    const steer = (started: FolderWatches, folders: Iterable<string>) => {
        for (const name of folders) started.found(name)
        started.rootListed()
        return started
    }

    /** The root's folders as they stand now. */
    const rootFoldersNow = () => {
        try {
            return readdirSync(watchRoot, { withFileTypes: true })
                .filter((entry) => entry.isDirectory() && !isIgnored(entry.name))
                .map((entry) => entry.name)
        } catch {
            return []
        }
    }

    /** The watches on a worker thread of their own (watch-worker.ts); here if it fails. */
    const watchOnWorker = (): FolderWatches => {
        const worker = startWorker('watch/watch-worker', {
            workerData: {
                root: watchRoot,
                readSince,
                served: options.served,
            } satisfies WatchWorkerData,
            resourceLimits: { maxYoungGenerationSizeMb: 4 },
        })
        let failed = false
        const workerFailed = (error: Error) => {
            if (failed || closed) return
            failed = true
            void worker.terminate()
            console.error(
                `shelf: the folder watches' worker failed (${error.message}); they go on without it`,
            )
            // Its watches went with it. Nothing changed meanwhile is lost: the new watches' first
            // scan counts every change since the reading again.
            watches = steer(
                watchFolders(watchRoot, readSince, reports, scanSliceMs),
                rootFoldersNow(),
            )
        }
        worker.on('message', (answer: WatchAnswer) => {
            if (answer === 'scanned') reports.scanned()
            else if ('changed' in answer) for (const path of answer.changed) note(path)
            else reports.failed(answer.failed)
        })
        worker.on('error', workerFailed)
        worker.on('exit', (code) => workerFailed(new Error(`exit code ${code}`)))
        const ask = (request: WatchRequest) => worker.postMessage(request)
        return {
            found: (name) => ask({ found: name }),
            rootEntryChanged: (name, event) => ask({ rootEntry: name, event }),
            rootListed: () => ask('rootListed'),
            close: () => void worker.terminate(),
        }
    }

    /**
     * The root's entries as chokidar lists them, with their stats: none is watched by chokidar
     * (its `depth: 0` and the answer `true` keep it from descending or keeping a record of each);
     * the folders among them are watched with Node's watch instead.
     */
    const rootEntry = (path: string, stats?: Stats) => {
        if (path === watchRoot) return false
        const name = relative(watchRoot, path).split(sep).join('/')
        if (isIgnored(name)) return true
        if (!stats) return false
        if (!scanned && changedSince(readSince, stats)) note(name)
        if (!stats.isDirectory()) return true
        if (watches) watches.found(name)
        else {
            rootFolders.push(name)
            if (stats.size > oneReadBytes) largeCatalog = true
        }
        return true
    }
    let rootWatch: RootWatch | undefined

    /**
     * The root by chokidar; once it is listed, every folder below it by the watches, which run
     * the first scan. It is done when every folder found is watched and listed.
     */
    const watchRootFirst = async () => {
        watchRoot = await realpath(root).catch(() => root)
        if (closed) return
        rootWatch = watchRootFolder(watchRoot, {
            ignoreInitial: true,
            depth: 0,
            followSymlinks: false,
            ignored: rootEntry,
        })
        rootWatch.on('raw', (event, name, details) => {
            const { watchedPath } = details as { watchedPath?: string }
            if (!name || watchedPath !== watchRoot) return
            note(name)
            if (watches) watches.rootEntryChanged(name, event)
            else rootEvents.push([name, event])
        })
        rootWatch.on('error', (error) => reports.failed(error as NodeJS.ErrnoException))
        // Not events.once, which rejects on the first 'error': that is reported, and chokidar still says 'ready'.
        rootWatch.once('ready', () => {
            if (closed) return
            watches = steer(
                largeCatalog
                    ? watchOnWorker()
                    : watchFolders(watchRoot, readSince, reports, scanSliceMs),
                rootFolders,
            )
            for (const [name, event] of rootEvents) watches.rootEntryChanged(name, event)
        })
    }

    const ready = watchRootFirst()
        .then(() => scanOver)
        .then(() => {
            // What the scan found changed is served before the watcher counts as ready.
            if (pending.size) flush()
            return running
        })
    return {
        ready,
        close: async () => {
            closed = true
            endScan()
            watches?.close()
            clearTimeout(quietTimer)
            await rootWatch?.close()
            await running
        },
    }
}
