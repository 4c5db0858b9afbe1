import { type FSWatcher as RootWatch, watch as watchRootFolder } from 'chokidar'
import { type Dirent, type FSWatcher, readdirSync, type Stats, watch } from 'node:fs'
import { opendir, realpath, stat } from 'node:fs/promises'
import { join, relative, sep } from 'node:path'
import { setImmediate as nextTurn } from 'node:timers/promises'
import type { Worker } from 'node:worker_threads'
import { isIgnored } from '../content/ignored-names.js'
import { Fifo } from '../util/fifo.js'
import { startWorker } from '../util/start-worker.js'
import { changedSince, type ScanFindings, scanFolder, statsNow } from './folder-changes.js'
import type { ScanAnswer, ScanRequest, ScanWorkerData } from './scan-worker.js'

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

const describeWatchError = (error: NodeJS.ErrnoException) =>
    error.code === 'ENOSPC'
        ? "cannot watch every folder: the system's limit of file watchers is reached (fs.inotify.max_user_watches; " +
          'Shelf needs one per folder). Changes in some folders will show only after a restart. ' +
          'Raise the limit (sudo sysctl fs.inotify.max_user_watches=1048576) or serve with --no-watch.'
        : `watching the folder failed (${error.message}); changes may show only after a restart`

/**
 * How the first scan shares the event loop with requests. The main thread starts the folders'
 * watches (a watch delivers its events to the thread that made it) in slices between turns of
 * the loop: at most `scanSliceMs` while the loop has nothing else to do, and while it serves
 * requests a quarter of the time it spent on them since the last slice. The listing of each folder
 * and the `stat` of its files, which must follow its watch, go to a worker thread of lower
 * priority (scan-worker.ts) once a folder too large to list between requests is met: at 10,000
 * levels they were three quarters of the scan's second of the main thread, and requests' p50
 * during the scan was three to four times its p50 after (docs/performance.md, "Watching").
 */
const scanSliceMs = 0.5
const scanShareOfBusyTurn = 1 / 4
/** A gap between slices shorter than this is a loop with nothing else to do. */
const idleGapMs = 0.2

/**
 * A folder whose listing outgrows one block (4 KB: on ext4 a hundred entries or so; a type folder
 * of a hundred thousand levels) is a large catalog's: the first scan starts its worker for it.
 * One made after the scan is read here `listedAtOnce` entries at a time, as one read of it would
 * be one long turn of the loop; an item's folder is read in one call.
 */
const oneReadBytes = 4096
const listedAtOnce = 256

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
 * `fs.watch`. A real catalog holds its items by the hundred thousand, and chokidar's bookkeeping
 * of a watched folder costs about 3.2 KB and 30 objects (its path under several names, a closer,
 * a listener set, a directory entry, a helper per `add`): at 100,000 folders a third of the
 * heap, which made the collector's marking steps long enough to show in requests' latency.
 * Node's watch with this watcher's note of it keeps about 0.7 KB a folder. It also names the
 * entry that changed, where chokidar lists the folder again and states every entry (a comment
 * into ten thousand, ten thousand stats).
 *
 * A folder is watched before it is listed, so that nothing made meanwhile is missed, and what its
 * listing finds changed since the reading counts as a change too: a file saved in that moment is
 * not lost. A folder that appears later is found by its parent's watch (stated alone when an
 * event names it), watched and listed, everything in it counting as new, its own subfolders
 * likewise (`mkdir -p` then a save deep inside). A folder that goes away stops being watched
 * with everything under it, so that one made again under its name is watched again. Dot folders
 * (the cache, .git) and editor leftovers are not watched at all.
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

    // A watch error must never take the server down: say once what it means and keep serving.
    const reported = new Set<string>()
    const reportError = (error: NodeJS.ErrnoException) => {
        const code = error.code ?? 'unknown'
        if (reported.has(code)) return
        reported.add(code)
        console.error(`shelf: ${describeWatchError(error)}`)
    }

    /**
     * The folder as chokidar is handed it: its real path, so that chokidar, which resolves the
     * folder it watches, finds no symbolic link on the way.
     */
    let watchRoot = root

    /** Every folder below the root, with its watch (none while it waits for its turn, or when it could not be watched). */
    const folders = new Map<string, FSWatcher | undefined>()
    /** Folders found in the first scan and not yet watched. */
    const found = new Fifo<string>()
    /**
     * The thread that lists and states the folders of the first scan once one too large to read
     * between requests is met (scan-worker.ts): before, a small folder is listed here, at its
     * watch. `failed` when it could not do its work: what it had not answered is listed here.
     */
    let worker: Worker | 'failed' | undefined
    /** Folders watched in the current slice of the first scan, handed to the worker at its end. */
    let toHand: ScanRequest = []
    /** Folders handed to the worker and not yet answered, in the order handed. */
    const atWorker = new Fifo<string>()
    /** Wakes the first scan when it waits: a folder found, an answer of the worker, the root listed, the watcher closed. */
    let wake = () => {}

    /** A folder found, to be watched: in its turn during the first scan, at once after it (then everything in it is new). */
    const discover = (folder: string) => {
        folders.set(folder, undefined)
        if (scanned) return watchAndList(folder)
        found.push(folder)
        wake()
    }

    /** A subfolder the first scan found: watched in its turn, unless known already or its parent is gone. */
    const foundFolder = (path: string) => {
        if (!folders.has(path) && folders.has(path.slice(0, path.lastIndexOf('/')))) discover(path)
    }

    /** What the first scan finds in a folder listed here. */
    const findings: ScanFindings = {
        // Kept while the folder is watched, as a flat copy: a joined path is a rope holding on to its parts.
        folder: (path) => foundFolder(path.split('/').join('/')),
        changed: note,
    }

    /** An entry of a folder made after the first scan: new, a subfolder to be watched and listed in turn. */
    const listed = (folder: string, name: string, isDirectory: boolean) => {
        if (isIgnored(name)) return
        const child = `${folder}/${name}`
        note(child)
        if (isDirectory && !folders.has(child)) discover(child.split('/').join('/'))
    }

    /** A large folder's entries, a few hundred at a time between turns of the event loop. */
    const listInParts = async (folder: string, path: string) => {
        try {
            for await (const entry of await opendir(path, { bufferSize: listedAtOnce }))
                listed(folder, entry.name, entry.isDirectory())
        } catch {
            // Gone or unreadable: its watch, or its parent's, says what became of it.
        }
    }

    /** Starts a folder's watch; false when the folder is gone. */
    const startWatching = (folder: string, path: string) => {
        try {
            const watcher = watch(path, (event, name) => {
                if (name) entryChanged(folder, String(name), event)
            })
            watcher.on('error', reportError)
            folders.set(folder, watcher)
        } catch (error) {
            // Gone since it was found: its parent's watch says so. Anything else (the system's
            // limit of watches, say) is reported, and the folder still listed: its subfolders
            // may yet be watched, and its changes since the reading are still served.
            if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
                folders.delete(folder)
                return false
            }
            reportError(error as NodeJS.ErrnoException)
        }
        return true
    }

    /** Whether a folder is still to be watched: not forgotten before its turn came (it is gone), nor found twice. */
    const awaitsWatch = (folder: string) => !closed && folders.has(folder) && !folders.get(folder)

    /**
     * A folder made after the first scan, watched then listed (after its watch began, so that
     * nothing made meanwhile is missed): everything in it is new.
     */
    const watchAndList = (folder: string) => {
        if (!awaitsWatch(folder)) return
        const path = join(watchRoot, folder)
        if (!startWatching(folder, path)) return
        const itself = statsNow(path)
        if (!itself) return
        if (itself.size > oneReadBytes) return void listInParts(folder, path)
        let entries: Dirent[]
        try {
            entries = readdirSync(path, { withFileTypes: true })
        } catch {
            return
        }
        for (const entry of entries) listed(folder, entry.name, entry.isDirectory())
    }

    /**
     * The worker's answers, taken in the scan's slices: a message port hands over every answer
     * queued in one turn, and at 100,000 levels the answers for one large folder held the main
     * thread 70 ms when taken as they came.
     */
    const answers = new Fifo<ScanAnswer>()
    const answered = (answer: ScanAnswer) => {
        answers.push(answer)
        wake()
    }

    /** An answer of the worker: the subfolders it found, the changes, the folders done. */
    const take = ({ found: subfolders, changed, done }: ScanAnswer) => {
        // Flat already: a string read from a message is.
        for (const path of subfolders) foundFolder(path)
        for (const path of changed) note(path)
        for (let count = 0; count < done; count++) atWorker.shift()
    }

    /** The worker failed: reported, and what it had not answered listed here, at once. */
    const workerFailed = (error: Error) => {
        if (worker === 'failed') return
        void (worker as Worker | undefined)?.terminate()
        worker = 'failed'
        console.error(
            `shelf: the first scan's worker failed (${error.message}); it goes on without`,
        )
        for (let folder = atWorker.shift(); folder !== undefined; folder = atWorker.shift())
            scanFolder(watchRoot, folder, readSince, findings)
        wake()
    }

    /** The worker's work is over: the scan is done, or the watcher closed. */
    const stopWorker = () => {
        if (typeof worker !== 'object') return
        const stopped = worker
        worker = undefined
        void stopped.terminate()
    }

    const startScanWorker = () => {
        const started = startWorker('watch/scan-worker', {
            workerData: { root: watchRoot, readSince } satisfies ScanWorkerData,
        })
        // Never what keeps the process alive: the watches are.
        started.unref()
        started.on('message', answered)
        started.on('error', workerFailed)
        started.on('exit', (code) => {
            if (worker === started) workerFailed(new Error(`exit code ${code}`))
        })
        return started
    }

    /** The first scan's step for a folder: watched, then listed here or handed to the worker (see `worker`). */
    const watchAndScan = (folder: string) => {
        if (!awaitsWatch(folder)) return
        const path = join(watchRoot, folder)
        if (!startWatching(folder, path)) return
        if (worker === undefined && (statsNow(path)?.size ?? 0) > oneReadBytes)
            worker = startScanWorker()
        if (worker === undefined || worker === 'failed')
            scanFolder(watchRoot, folder, readSince, findings)
        else toHand.push(folder)
    }

    /** The folders watched in this slice go to the worker. */
    const handToWorker = () => {
        if (toHand.length === 0 || worker === undefined || worker === 'failed') return
        for (const folder of toHand) atWorker.push(folder)
        worker.postMessage(toHand)
        toHand = []
    }

    /**
     * An event of a folder's watch (the root's, with `parent` ''): the entry named changed. One that
     * turns out to be a new folder is watched. A watched folder an event says was made, removed or
     * moved ('rename') is forgotten with everything under it, and watched again as new if a folder
     * stands under its name: one removed and made again at once (a branch checked out) is watched
     * again, not left with the watch of a folder that is gone.
     */
    const entryChanged = (parent: string, name: string, event: string) => {
        const relativePath = parent ? `${parent}/${name}` : name
        note(relativePath)
        if (isIgnored(name) || closed) return
        const known = folders.has(relativePath)
        if (known && event !== 'rename') return
        void stat(join(watchRoot, relativePath))
            .catch(() => undefined)
            .then((info) => {
                if (closed || (parent && !folders.has(parent))) return
                if (known) forget(relativePath)
                if (info?.isDirectory() && !folders.has(relativePath)) discover(relativePath)
            })
    }

    /** A folder and everything under it stop being watched. */
    const forget = (relativePath: string) => {
        const prefix = `${relativePath}/`
        for (const [folder, watcher] of folders) {
            if (folder !== relativePath && !folder.startsWith(prefix)) continue
            folders.delete(folder)
            watcher?.close()
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
        if (stats.isDirectory() && !folders.has(name)) discover(name)
        return true
    }
    let rootWatch: RootWatch | undefined

    /** Takes items off the queue into `step` until `sliceEnd` (one at least); answers whether it took any. */
    const stepsUntil = <Item>(queue: Fifo<Item>, step: (item: Item) => void, sliceEnd: number) => {
        let stepped = false
        for (
            let item = queue.shift();
            item !== undefined;
            item = performance.now() < sliceEnd ? queue.shift() : undefined
        ) {
            step(item)
            stepped = true
        }
        return stepped
    }

    /**
     * The first scan: the root by chokidar, every folder below it watched in slices between turns
     * of the event loop (`scanSliceMs`, `scanShareOfBusyTurn`), so that requests get theirs in
     * between, and listed by the worker. It is done when the root is listed and every folder
     * found is watched and listed.
     */
    const scan = async () => {
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
            if (name && watchedPath === watchRoot) entryChanged('', name, event)
        })
        rootWatch.on('error', (error) => reportError(error as NodeJS.ErrnoException))
        let rootListed = false
        // Not events.once, which rejects on the first 'error': that is reported, and chokidar still says 'ready'.
        rootWatch.once('ready', () => {
            rootListed = true
            wake()
        })
        let lastSliceEnd = performance.now()
        while (!closed) {
            await nextTurn()
            const now = performance.now()
            const gap = now - lastSliceEnd
            const sliceEnd =
                now +
                (gap < idleGapMs ? scanSliceMs : Math.min(scanSliceMs, gap * scanShareOfBusyTurn))
            // The worker's answers first: the folders they find join the queue of those to watch.
            const tookAnswers = stepsUntil(answers, take, sliceEnd)
            const stepped = stepsUntil(found, watchAndScan, sliceEnd) || tookAnswers
            if (stepped) lastSliceEnd = performance.now()
            handToWorker()
            if (stepped) continue
            // Closed while this turn waited: its wake came before there was a wait to end.
            if (closed || (rootListed && atWorker.size === 0)) break
            // Not raced against a promise of the closing, which would keep a reaction of every wait.
            await new Promise<void>((resolve) => (wake = resolve))
            wake = () => {}
            lastSliceEnd = performance.now()
        }
        scanned = true
        stopWorker()
    }

    const ready = scan().then(() => {
        // What the scan found changed is served before the watcher counts as ready.
        if (pending.size) flush()
        return running
    })
    return {
        ready,
        close: async () => {
            closed = true
            wake()
            stopWorker()
            clearTimeout(quietTimer)
            for (const watcher of folders.values()) watcher?.close()
            await rootWatch?.close()
            await running
        },
    }
}
