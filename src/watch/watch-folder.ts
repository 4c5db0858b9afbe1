import { type FSWatcher, watch } from 'chokidar'
import { type FSWatcher as FolderWatch, type Stats, watch as watchEntries } from 'node:fs'
import { opendir, realpath, stat } from 'node:fs/promises'
import { join, relative, sep } from 'node:path'
import { setImmediate as nextTurn } from 'node:timers/promises'
import { isIgnored } from '../content/load.js'
import { mapLimit } from '../util/map-limit.js'

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
 * How the first scan hands folders to chokidar. Handed the whole tree at once, chokidar stats every
 * file and folder together (at 100,000 levels half a million stats in flight, hundreds of
 * megabytes of garbage) and requests wait behind its callbacks; handed 64 folders at a time (each
 * batch a chokidar instance whose `ready` said when it was done), every folder of a batch
 * finished its stat, its listing, its entries' stats and its watch in the same few turns of the
 * event loop, and a request arriving then waited behind all of them. So folders are handed over
 * a few at a time instead, at most `maxFoldersAtOnce` whose stat chokidar has not yet answered,
 * and only one while the loop is busy with something else: a turn of the loop that took longer
 * than `busyTurnMs` (requests, say) drops the allowance to one folder, a quick one raises it by
 * one. At 10,000 levels, with 10 connections asking a list page (`bench/watch-scan.ts`), the
 * page's p99 during the scan was 2.2–3.3 times its p99 after it (6.1–8.6 ms against 2.3–3.9 ms,
 * 17 runs), against 4.8–7.9 times with batches of 64 in the same minutes (11.6–18.0 ms, 9 runs).
 * Under that load the scan takes 2.7–4.0 s against 2.0–2.2 s, as requests get most of the thread
 * (17,000–24,000 answered during it, 4,300–4,800 before); alone it takes as long as before,
 * 1.6–1.8 s.
 * One folder at a time throughout did a little better under load (2.1–2.9 times) but took 2.1 s
 * alone; batches of 16 or 8, an instance each, 3.0–3.5 and 2.4–3.1 times.
 */
const maxFoldersAtOnce = 8
const busyTurnMs = 0.5
/**
 * Folders per chokidar instance, whose `ready` says when all of them are listed and watched. Each
 * instance costs about 2.6 KB of its own, so fewer are better; but chokidar keeps a record of
 * every unwatched folder in the instance that watched it and tests each path it lists against
 * all of them, so not too many either.
 */
const foldersPerInstance = 64

/**
 * Folders that hold many entries and take new ones all the time: the type folders (a hundred
 * thousand levels or replays) and an item's comments and leaderboards. chokidar lists a folder
 * again at every change in it (at most once a second), stating each entry: a comment into a
 * folder of ten thousand cost ten thousand stats, a play into a hundred thousand replays a
 * hundred thousand. These are watched with node's own watch, which names the entry that
 * changed; an entry that turns out to be a new folder is stated alone and handed over.
 */
const isFlatFolder = (relativePath: string) =>
    /^[^/]+$/.test(relativePath) || /^[^/]+\/[^/]+\/(comments|leaderboards)$/.test(relativePath)

/** Entries of a flat folder stated at once in the first scan, to find what changed since the reading. */
const statsAtOnce = 16
/** Entries of a flat folder read from the system at once (see `watchFlat`). */
const listedAtOnce = 256

/**
 * Watches a folder and hands over batches of changed paths (relative, `/`-separated). A burst,
 * such as `git checkout` of a branch or an editor's write-then-rename save, becomes one batch;
 * editor leftovers (swap, backup, temporary and dot files) never count as changes. Batches run
 * one at a time: changes arriving during one are gathered into the next.
 *
 * chokidar watches folders only, one watch each: a folder's watch reports every change of the
 * files in it (written, created, removed, renamed) as a raw event, so a file needs no watch of its
 * own. Dot folders (the cache, .git) are not watched at all. chokidar is told not to descend
 * (`depth: 0`): each folder it lists names its subfolders, and those are handed to it here, a
 * few at a time (see `maxFoldersAtOnce`), to chokidar instances of up to `foldersPerInstance`
 * folders whose `ready` says when they are listed and watched; never to the instance that watches
 * the folder holding them, as chokidar, listing a folder again after a change in it, would drop
 * the watch of a subfolder it keeps under it and the (filtered) listing does not name. A folder
 * is listed before its watch starts, so what a listing finds changed lately is taken as a change
 * too: a file saved in that moment, or into a folder that just appeared, is not missed.
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
    /**
     * The folder as chokidar is handed it: its real path, so that chokidar, which resolves every
     * folder it watches, finds no symbolic link on the way and keeps no note of one per folder.
     */
    let watchRoot = root
    let rootPrefix = `${root}/`
    const parentOf = (relativePath: string) =>
        relativePath.slice(0, Math.max(0, relativePath.lastIndexOf('/')))
    const relativeTo = (path: string) =>
        sep === '/' && path.startsWith(rootPrefix)
            ? path.slice(rootPrefix.length)
            : relative(watchRoot, path).split(sep).join('/')

    /** Every folder handed to chokidar, with the instance that watches it (none yet while it waits for its turn). */
    const folders = new Map<string, FSWatcher | undefined>([['', undefined]])
    /** Folders found in a listing and not yet handed over (absolute paths), from `foundFrom` on. */
    let found: string[] = []
    let foundFrom = 0
    /** The next `count` folders found (taken from the front without moving the rest: at 100,000 folders that would be quadratic). */
    const takeFound = (count: number) => {
        const taken = found.slice(foundFrom, foundFrom + count)
        foundFrom += taken.length
        if (foundFrom === found.length) {
            found = []
            foundFrom = 0
        } else if (foundFrom >= 4096 && foundFrom * 2 >= found.length) {
            found = found.slice(foundFrom)
            foundFrom = 0
        }
        return taken
    }
    /**
     * Folders being handed over: chokidar asks about each once more with its stats, which is no new
     * finding. How many are left to ask about is how far chokidar is behind.
     */
    const handing = new Set<string>()
    /** Wakes the first scan when it waits: a folder found, a folder's stat back, an instance done. */
    let wake = () => {}
    /** Folders that appeared after the first scan: whatever their listing holds is new. */
    const newFolders = new Set<string>()

    /** Whether a listed entry may hold a change no event reported: listed before its folder's watch began. */
    const unreported = (relativePath: string, stats: Stats) => {
        if (scanned) return newFolders.has(parentOf(relativePath))
        // The change time moves with every write, rename or move into place; a modification time need not.
        return stats.ctimeMs >= readSince - clockSlackMs
    }

    /**
     * Called for every entry a listing finds, with its stats once chokidar has them. Files are
     * ignored (their folder's watch reports them), and so are folders: chokidar would stat each
     * again and keep an entry for it under its parent; each is handed over instead, once.
     */
    const ignored = (path: string, stats?: Stats) => {
        if (handing.has(path)) {
            if (stats) {
                handing.delete(path)
                wake()
            }
            return false
        }
        const relativePath = relativeTo(path)
        if (relativePath.startsWith('.') || relativePath.includes('/.')) return true
        if (!stats) return false
        if (stats.isDirectory() && folders.has(relativePath)) return true
        if (unreported(relativePath, stats)) note(relativePath)
        if (stats.isDirectory()) discover(relativePath, path)
        return true
    }

    /** A folder found in a listing, to be handed over to be watched. */
    const discover = (relativePath: string, path: string) => {
        // Kept while the folder is watched: a copy, as a slice of the listed path keeps all of it (70 B a folder).
        const folder = relativePath.split('/').join('/')
        folders.set(folder, undefined)
        found.push(path)
        wake()
        if (scanned) {
            newFolders.add(folder)
            handOverSoon()
        }
    }

    /** The flat folders (see `isFlatFolder`) watched with node's watch, and how many are being listed. */
    const flat = new Map<string, FolderWatch>()
    let listingFlat = 0
    const watchFlat = async (path: string) => {
        const relativePath = relativeTo(path)
        listingFlat++
        try {
            let watcher: FolderWatch
            try {
                watcher = watchEntries(path, (_event, name) => {
                    if (name) void flatEntryChanged(relativePath, String(name))
                })
            } catch (error) {
                reportError(error as NodeJS.ErrnoException)
                return
            }
            watcher.on('error', (error) => reportError(error as NodeJS.ErrnoException))
            flat.set(relativePath, watcher)
            // Listed once the watch is on, as chokidar lists a folder: nothing made meanwhile is
            // missed. Listed a few hundred entries at a time: a hundred thousand levels listed in
            // one go are a hundred thousand entries made and gone through in one turn of the loop,
            // which the requests of that moment wait behind.
            const files: string[] = []
            try {
                for await (const entry of await opendir(path, { bufferSize: listedAtOnce })) {
                    if (entry.name.startsWith('.')) continue
                    const child = `${relativePath}/${entry.name}`
                    if (entry.isDirectory()) {
                        if (!folders.has(child)) discover(child, join(path, entry.name))
                    } else files.push(child)
                }
            } catch {
                // Gone or unreadable: its watch, or its parent's, says what became of it.
            }
            await mapLimit(files, statsAtOnce, async (child) => {
                const info = await stat(join(watchRoot, child)).catch(() => undefined)
                if (info && unreported(child, info)) note(child)
            })
        } finally {
            listingFlat--
            wake()
        }
    }
    const flatEntryChanged = async (parent: string, name: string) => {
        const relativePath = `${parent}/${name}`
        note(relativePath)
        if (folders.has(relativePath)) return forgetIfGone(relativePath)
        if (name.startsWith('.') || closed) return
        const info = await stat(join(watchRoot, relativePath)).catch(() => undefined)
        if (info?.isDirectory() && !folders.has(relativePath) && flat.has(parent))
            discover(relativePath, join(watchRoot, relativePath))
    }

    /** The folders found next that chokidar watches; the flat ones among them are watched at once. */
    const takeForChokidar = (count: number) => {
        const batch = takeFound(count)
        const forChokidar = batch.filter((path) => !isFlatFolder(relativeTo(path)))
        for (const path of batch) if (!forChokidar.includes(path)) void watchFlat(path)
        return forChokidar
    }
    const chokidarOptions = { ignoreInitial: true, depth: 0, followSymlinks: false, ignored }

    const watchers: FSWatcher[] = []
    // A watcher error must never take the server down: say once what it means and keep serving.
    const reported = new Set<string>()
    const reportError = (error: NodeJS.ErrnoException) => {
        const code = error.code ?? 'unknown'
        if (reported.has(code)) return
        reported.add(code)
        console.error(`shelf: ${describeWatchError(error)}`)
    }
    const instance = () => {
        const watcher = watch([], chokidarOptions)
        watchers.push(watcher)
        watcher.on('raw', (_event, name, details) => {
            // A folder going away reports its own name; as a path below itself it names nothing, and its parent reports it too.
            const { watchedPath } = details as { watchedPath?: string }
            if (!name || !watchedPath) return
            const relativePath = relativeTo(join(watchedPath, name))
            note(relativePath)
            if (folders.has(relativePath)) void forgetIfGone(relativePath)
        })
        watcher.on('error', (error) => reportError(error as NodeJS.ErrnoException))
        return watcher
    }
    const handOver = (watcher: FSWatcher, batch: string[]) => {
        for (const path of batch) {
            handing.add(path)
            folders.set(relativeTo(path), watcher)
        }
        watcher.add(batch)
    }

    /** A folder removed stops being watched, with the folders it held, so that one made again under its name is watched again. */
    const forgetIfGone = async (relativePath: string) => {
        const info = await stat(join(root, relativePath)).catch(() => undefined)
        if (info?.isDirectory() || closed) return
        const prefix = `${relativePath}/`
        for (const [folder, watcher] of folders) {
            if (folder !== relativePath && !folder.startsWith(prefix)) continue
            folders.delete(folder)
            newFolders.delete(folder)
            watcher?.unwatch(join(watchRoot, folder))
            flat.get(folder)?.close()
            flat.delete(folder)
        }
    }

    /**
     * The first scan: every folder, a few at a time (`maxFoldersAtOnce`, one while the loop is
     * busy), handed over between turns of the event loop so that requests get theirs in between.
     * It is done when nothing found waits and every instance has said `ready`.
     */
    let closing: () => void = () => {}
    const closingSignal = new Promise<void>((resolve) => (closing = resolve))
    const scan = async () => {
        watchRoot = await realpath(root).catch(() => root)
        rootPrefix = watchRoot.endsWith('/') ? watchRoot : `${watchRoot}/`
        found.push(watchRoot)
        /** Instances still listing or starting watches, each with the folders handed to it. */
        const busy = new Map<FSWatcher, string[]>()
        let current: { watcher: FSWatcher; handed: string[] } | undefined
        let atOnce = 1
        let turnStarted = performance.now()
        while (!closed) {
            // Folders are handed over only here, after the loop's I/O callbacks and their ticks: an
            // instance whose last folder was just watched has told so ('ready') by then.
            await nextTurn()
            const now = performance.now()
            atOnce = now - turnStarted > busyTurnMs ? 1 : Math.min(maxFoldersAtOnce, atOnce + 1)
            turnStarted = now
            if (found.length > foundFrom && handing.size < atOnce) {
                const batch = takeForChokidar(atOnce - handing.size)
                if (batch.length === 0) continue
                if (
                    !current ||
                    current.handed.length + batch.length > foldersPerInstance ||
                    !busy.has(current.watcher) ||
                    batch.some(
                        (path) => folders.get(parentOf(relativeTo(path))) === current!.watcher,
                    )
                ) {
                    const watcher = instance()
                    const handed: string[] = []
                    current = { watcher, handed }
                    busy.set(watcher, handed)
                    // Not events.once, which rejects on the first 'error' (a folder over the system's limit of
                    // watches, say): that is reported, and the instance still says 'ready'.
                    const listed = new Promise<void>((resolve) =>
                        watcher.once('ready', () => resolve()),
                    )
                    void Promise.race([listed, closingSignal]).then(() => {
                        busy.delete(watcher)
                        // A folder gone before chokidar got to it is never asked about with its stats.
                        for (const path of handed) handing.delete(path)
                        wake()
                    })
                }
                current.handed.push(...batch)
                handOver(current.watcher, batch)
                continue
            }
            if (busy.size === 0 && listingFlat === 0) break
            await Promise.race([new Promise<void>((resolve) => (wake = resolve)), closingSignal])
            wake = () => {}
            turnStarted = performance.now()
        }
        scanned = true
    }

    /**
     * After the scan, the folders that appear are handed over together to one instance; a new one
     * for a folder inside a folder it watches: chokidar, listing a folder again after a change in
     * it, drops the watch of a subfolder it keeps under it that the (filtered) listing does not
     * name. (The scan keeps them apart the same way.)
     */
    let live: FSWatcher | undefined
    let handOverScheduled = false
    const handOverSoon = () => {
        if (handOverScheduled) return
        handOverScheduled = true
        setImmediate(() => {
            handOverScheduled = false
            if (closed) return
            const batch = takeForChokidar(found.length)
            if (batch.length === 0) return
            if (!live || batch.some((path) => folders.get(parentOf(relativeTo(path))) === live))
                live = instance()
            handOver(live, batch)
        })
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
            closing()
            clearTimeout(quietTimer)
            for (const watcher of flat.values()) watcher.close()
            await Promise.all(watchers.map((watcher) => watcher.close()))
            await running
        },
    }
}
