import { type FSWatcher as RootWatch, watch as watchRootFolder } from 'chokidar'
import { type Dirent, type FSWatcher, readdirSync, type Stats, statSync, watch } from 'node:fs'
import { opendir, realpath, stat } from 'node:fs/promises'
import { join, relative, sep } from 'node:path'
import { setImmediate as nextTurn } from 'node:timers/promises'
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
 * How the first scan shares the event loop with requests. It watches a folder, lists it and
 * states its files with the system's calls made at once (a few microseconds each here), not one
 * promise per call (tens of microseconds of the main thread each, and their garbage), in slices
 * between turns of the loop: at most `scanSliceMs` while the loop has nothing else to do, and
 * while it serves requests a third of the time it spent on them since the last slice, so that the
 * scan takes about a quarter of a busy thread. At 100,000 levels the scan is half a million stats;
 * made as promises, a few at a time between turns, they kept requests' p99 during the scan at
 * 1.6–2.9 times its p99 after, and the scan took 43 s (docs/performance.md, "Watching").
 */
const scanSliceMs = 1
const scanShareOfBusyTurn = 1 / 3
/** A gap between slices shorter than this is a loop with nothing else to do. */
const idleGapMs = 0.2

/**
 * A folder whose listing outgrows one block (4 KB: on ext4 a hundred entries or so; a type folder
 * of a hundred thousand levels) is read `listedAtOnce` entries at a time, as one read of it would
 * be one long turn of the loop; an item's folder is read in one call.
 */
const oneReadBytes = 4096
const listedAtOnce = 256

/** A path's stats, or nothing when it is gone or cannot be stated (its watch, or its parent's, says what became of it). */
const statsNow = (path: string) => {
    try {
        return statSync(path, { throwIfNoEntry: false })
    } catch {
        return undefined
    }
}

/** Whether a change time is past the reading of the folder (see `readSince`). */
const changedSince = (readSince: number, stats: Stats) =>
    // The change time moves with every write, rename or move into place; a modification time need not.
    stats.ctimeMs >= readSince - clockSlackMs

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
    /** Folders found in the first scan and not yet watched, from `foundFrom` on. */
    let found: string[] = []
    let foundFrom = 0
    /** The next folder found (taken from the front without moving the rest: at 100,000 folders that would be quadratic). */
    const takeFound = () => {
        const folder = found[foundFrom++]!
        if (foundFrom === found.length) {
            found = []
            foundFrom = 0
        } else if (foundFrom >= 4096 && foundFrom * 2 >= found.length) {
            found = found.slice(foundFrom)
            foundFrom = 0
        }
        return folder
    }
    /** Files listed in the first scan whose change time is still to be compared with the reading. */
    const filesToCheck: string[] = []
    /** Large folders being listed a few hundred entries at a time: the first scan is not done before them. */
    let listing = 0
    /** Wakes the first scan when it waits: a folder found, a folder listed, the root listed, the watcher closed. */
    let wake = () => {}

    /** A folder found, to be watched: in its turn during the first scan, at once after it (then everything in it is new). */
    const discover = (folder: string) => {
        folders.set(folder, undefined)
        if (scanned) return watchAndList(folder, true)
        found.push(folder)
        wake()
    }

    /** An entry a folder's listing holds: a subfolder is found, a file new or to be checked. */
    const listed = (folder: string, name: string, isDirectory: boolean, isNew: boolean) => {
        if (isIgnored(name)) return
        const child = `${folder}/${name}`
        if (isNew) note(child)
        if (isDirectory) {
            // Kept while the folder is watched, as a flat copy: the joined path is a rope holding on to its parts.
            if (!folders.has(child)) discover(child.split('/').join('/'))
        } else if (!isNew) {
            filesToCheck.push(child)
            wake()
        }
    }

    /** A large folder's entries, a few hundred at a time between turns of the event loop. */
    const listInParts = async (folder: string, path: string, isNew: boolean) => {
        listing++
        try {
            for await (const entry of await opendir(path, { bufferSize: listedAtOnce }))
                listed(folder, entry.name, entry.isDirectory(), isNew)
        } catch {
            // Gone or unreadable: its watch, or its parent's, says what became of it.
        } finally {
            listing--
            wake()
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

    /**
     * Watches a folder below the root, then lists it: the subfolders it holds are found, and what
     * it holds changed since the reading (everything, when the folder itself is new) is noted, its
     * files' change times checked in the scan's next steps.
     */
    const watchAndList = (folder: string, isNew: boolean) => {
        // Forgotten before its turn came (its folder is gone), or found twice.
        if (closed || !folders.has(folder) || folders.get(folder)) return
        const path = join(watchRoot, folder)
        if (!startWatching(folder, path)) return
        // After the watch began: the folder's own change time moves when an entry is made,
        // removed or renamed in it; a file's, when it is written.
        const itself = statsNow(path)
        if (!itself) return
        if (!isNew && changedSince(readSince, itself)) note(folder)
        if (itself.size > oneReadBytes) return void listInParts(folder, path, isNew)
        let entries: Dirent[]
        try {
            entries = readdirSync(path, { withFileTypes: true })
        } catch {
            return
        }
        for (const entry of entries) listed(folder, entry.name, entry.isDirectory(), isNew)
    }

    /** A file listed in the first scan: noted if it changed since the reading. */
    const checkFile = (file: string) => {
        const info = statsNow(join(watchRoot, file))
        if (info && changedSince(readSince, info)) note(file)
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

    /**
     * The first scan: the root by chokidar, every folder below it in slices between turns of the
     * event loop (`scanSliceMs`, `scanShareOfBusyTurn`), so that requests get theirs in between.
     * It is done when the root is listed and every folder found is watched and listed.
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
            let stepped = false
            for (;;) {
                const file = filesToCheck.pop()
                if (file !== undefined) checkFile(file)
                else if (found.length > foundFrom) watchAndList(takeFound(), false)
                else break
                stepped = true
                lastSliceEnd = performance.now()
                if (lastSliceEnd >= sliceEnd) break
            }
            if (stepped) continue
            // Closed while this turn waited: its wake came before there was a wait to end.
            if (closed || (rootListed && listing === 0)) break
            // Not raced against a promise of the closing, which would keep a reaction of every wait.
            await new Promise<void>((resolve) => (wake = resolve))
            wake = () => {}
            lastSliceEnd = performance.now()
        }
        scanned = true
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
            clearTimeout(quietTimer)
            for (const watcher of folders.values()) watcher?.close()
            await rootWatch?.close()
            await running
        },
    }
}
