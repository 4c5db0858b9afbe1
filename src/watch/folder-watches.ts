import { type FSWatcher, readdirSync, watch } from 'node:fs'
import { stat } from 'node:fs/promises'
import { join } from 'node:path'
import { isIgnored } from '../content/ignored-names.js'
import { Fifo } from '../util/fifo.js'
import { RestWhileServed, type ServedRequests } from '../util/served-requests.js'
import { TurnSlices } from '../util/turn-slices.js'
import { type ScanFindings, scanFolder } from './folder-changes.js'

/** What the watches say, to the thread that serves (watch-folder.ts). */
export type WatchReports = {
    /** An entry changed (relative, `/`-separated): named by an event, or found changed since the reading by the first scan. */
    changed(path: string): void
    /** A watch could not be started or failed: said once for each kind of failure (its code). */
    failed(error: { code?: string; message: string }): void
    /** The first scan is over: every folder found is watched and listed. */
    scanned(): void
}

/** The watches of the folders below the root, steered by the root's own watch (chokidar's, in watch-folder.ts). */
export type FolderWatches = {
    /** A folder of the root, listed or made: watched and listed in its turn. */
    found(name: string): void
    /** An event of the root's watch: the entry named changed; a folder among them is watched, or forgotten. */
    rootEntryChanged(name: string, event: string): void
    /** Every folder of the root has been `found`: the first scan ends once they are all watched and listed. */
    rootListed(): void
    close(): void
}

/**
 * Watches every folder below `root` with Node's own `fs.watch`, one watch a folder, and runs
 * their first scan. A watch delivers its events to the thread that made it: for a large catalog
 * this runs on a worker thread of its own (watch-worker.ts), so that the thread that serves
 * neither starts a watch a folder nor keeps their objects (about 0.7 KB a folder), which its
 * scavenges copied during the first scan and its full collections marked after it.
 *
 * A folder is watched before it is listed, so that nothing made meanwhile is missed, and what its
 * listing finds changed since the reading (`readSince`, ms since the epoch) counts as a change
 * too: a file saved in that moment is not lost. The first scan takes the folders in slices of
 * `sliceMs`, between which the thread's loop takes the watches' events; on a worker thread, one
 * in which the serving thread took requests (`served`) is followed by a rest as long. A folder that appears
 * later is found by its parent's watch (stated alone when an event names it), watched and listed,
 * everything in it counting as new, its own subfolders likewise (`mkdir -p` then a save deep
 * inside). A folder that goes away stops being watched with everything under it, so that one made
 * again under its name is watched again. Dot folders (the cache, .git) and editor leftovers are
 * not watched at all.
 */
export const watchFolders = (
    root: string,
    readSince: number,
    reports: WatchReports,
    sliceMs: number,
    served?: ServedRequests,
): FolderWatches => {
    /** Every folder below the root, with its watch (none while it waits for its turn, or when it could not be watched). */
    const folders = new Map<string, FSWatcher | undefined>()
    /** Folders found in the first scan and not yet watched. */
    const found = new Fifo<string>()
    let scanned = false
    let closed = false
    let rootListed = false
    /** Wakes the first scan when it waits: a folder found, the root listed, the watches closed. */
    let wake = () => {}

    const failuresSaid = new Set<string>()
    const failed = (error: NodeJS.ErrnoException) => {
        const code = error.code ?? 'unknown'
        if (failuresSaid.has(code)) return
        failuresSaid.add(code)
        reports.failed({ code: error.code, message: error.message })
    }

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

    /** What the first scan finds in a folder. */
    const findings: ScanFindings = {
        // Kept while the folder is watched, as a flat copy: a joined path is a rope holding on to its parts.
        folder: (path) => foundFolder(path.split('/').join('/')),
        changed: (path) => reports.changed(path),
    }

    /** Starts a folder's watch; false when the folder is gone. */
    const startWatching = (folder: string) => {
        try {
            const watcher = watch(join(root, folder), (event, name) => {
                if (name) entryChanged(folder, String(name), event)
            })
            watcher.on('error', failed)
            folders.set(folder, watcher)
        } catch (error) {
            // Gone since it was found: its parent's watch says so. Anything else (the system's
            // limit of watches, say) is reported, and the folder still listed: its subfolders
            // may yet be watched, and its changes since the reading are still served.
            if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
                folders.delete(folder)
                return false
            }
            failed(error as NodeJS.ErrnoException)
        }
        return true
    }

    /** Whether a folder is still to be watched: not forgotten before its turn came (it is gone), nor found twice. */
    const awaitsWatch = (folder: string) => !closed && folders.has(folder) && !folders.get(folder)

    /** The first scan's step for a folder: watched, then listed. */
    const watchAndScan = (folder: string) => {
        if (awaitsWatch(folder) && startWatching(folder))
            scanFolder(root, folder, readSince, findings)
    }

    /**
     * A folder made after the first scan, watched then listed (after its watch began, so that
     * nothing made meanwhile is missed): everything in it is new.
     */
    const watchAndList = (folder: string) => {
        if (!awaitsWatch(folder) || !startWatching(folder)) return
        let entries
        try {
            entries = readdirSync(join(root, folder), { withFileTypes: true })
        } catch {
            // Gone or unreadable: its watch, or its parent's, says what became of it.
            return
        }
        for (const entry of entries) {
            if (isIgnored(entry.name)) continue
            const child = `${folder}/${entry.name}`
            reports.changed(child)
            if (entry.isDirectory() && !folders.has(child)) discover(child.split('/').join('/'))
        }
    }

    /** An event of a folder's watch: the entry named changed. */
    const entryChanged = (folder: string, name: string, event: string) => {
        const relativePath = `${folder}/${name}`
        reports.changed(relativePath)
        folderEvent(folder, relativePath, name, event)
    }

    /**
     * What an event (the root's, with `parent` '') means for the watches: one that turns out to
     * name a new folder is watched. A watched folder an event says was made, removed or moved
     * ('rename') is forgotten with everything under it, and watched again as new if a folder
     * stands under its name: one removed and made again at once (a branch checked out) is watched
     * again, not left with the watch of a folder that is gone.
     */
    const folderEvent = (parent: string, relativePath: string, name: string, event: string) => {
        if (isIgnored(name) || closed) return
        const known = folders.has(relativePath)
        if (known && event !== 'rename') return
        void stat(join(root, relativePath))
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

    /** The first scan: done when the root is listed and every folder found is watched and listed. */
    const scan = async () => {
        const slices = new TurnSlices(sliceMs)
        const rest = new RestWhileServed(served)
        while (!closed) {
            const folder = found.shift()
            if (folder !== undefined) {
                watchAndScan(folder)
                if (slices.due()) {
                    await rest.afterSlice(sliceMs)
                    await slices.pause()
                }
                continue
            }
            if (rootListed) break
            await new Promise<void>((resolve) => (wake = resolve))
            wake = () => {}
            await slices.pause()
        }
        scanned = true
        if (!closed) reports.scanned()
    }
    void scan()

    return {
        found: (name) => {
            if (!folders.has(name)) discover(name)
        },
        rootEntryChanged: (name, event) => folderEvent('', name, name, event),
        rootListed: () => {
            rootListed = true
            wake()
        },
        close: () => {
            closed = true
            wake()
            for (const watcher of folders.values()) watcher?.close()
            folders.clear()
        },
    }
}
