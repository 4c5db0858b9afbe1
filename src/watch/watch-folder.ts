import { readdirSync, statSync, watch, type FSWatcher } from 'node:fs'
import { basename, join } from 'node:path'
import { isIgnored } from '../content/load.js'

export type FolderWatcher = {
    /** Resolves once the initial scan is done and every later change will be seen. */
    ready: Promise<void>
    close(): Promise<void>
}

export type WatchOptions = {
    /** A batch closes after this long without a new event… */
    quietMs?: number
    /** …or this long after its first event, so a long burst still shows up step by step. */
    maxWaitMs?: number
}

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
 * Only folders are watched, one watch each: a folder's watch also reports every change of the
 * files in it (written, created, removed, renamed), so a file needs none of its own, and a level
 * costs one watch instead of one per file. Dot folders (the cache, .git) are not watched at all.
 */
export const watchFolder = (root: string, onBatch: (paths: string[]) => Promise<void>, options: WatchOptions = {}): FolderWatcher => {
    const quietMs = options.quietMs ?? 20
    const maxWaitMs = options.maxWaitMs ?? 200
    const pending = new Set<string>()
    let quietTimer: NodeJS.Timeout | undefined
    let batchStarted = 0
    let running: Promise<void> = Promise.resolve()
    let closed = false

    const flush = () => {
        clearTimeout(quietTimer)
        quietTimer = undefined
        const paths = [...pending]
        pending.clear()
        running = running.then(() => onBatch(paths)).catch((error: unknown) => console.error('shelf: reload failed:', error))
    }

    const note = (path: string) => {
        if (closed || path.split('/').some(isIgnored)) return
        if (pending.size === 0) batchStarted = Date.now()
        pending.add(path)
        clearTimeout(quietTimer)
        const wait = Math.max(0, Math.min(quietMs, batchStarted + maxWaitMs - Date.now()))
        quietTimer = setTimeout(flush, wait)
    }

    // A watcher error must never take the server down: say once what it means and keep serving.
    const reported = new Set<string>()
    const report = (error: NodeJS.ErrnoException) => {
        const code = error.code ?? 'unknown'
        if (reported.has(code)) return
        reported.add(code)
        console.error(`shelf: ${describeWatchError(error)}`)
    }

    /** Watched folders by path relative to the root ('' for the root itself). */
    const watchers = new Map<string, FSWatcher>()

    /** Watches a folder and the folders below it; `announce` notes every path found in them, for a folder that just appeared. */
    const add = (folder: string, announce: boolean) => {
        if (closed || watchers.has(folder)) return
        const absolute = join(root, folder)
        try {
            const watcher = watch(absolute, (event, name) => {
                if (name) changed(folder, event, name.toString())
            })
            watcher.on('error', (error) => {
                report(error)
                forget(folder)
            })
            watchers.set(folder, watcher)
        } catch (error) {
            report(error as NodeJS.ErrnoException)
        }
        // Listed after its watch starts, so an entry made meanwhile is either listed or reported.
        let entries
        try {
            entries = readdirSync(absolute, { withFileTypes: true })
        } catch {
            return // gone already: the event about its parent says so
        }
        for (const entry of entries) {
            if (entry.name.startsWith('.')) continue
            const path = folder ? `${folder}/${entry.name}` : entry.name
            if (announce) note(path)
            if (entry.isDirectory()) add(path, announce)
        }
    }

    /** Stops watching a folder that went away (or was renamed away), and everything below it. */
    const forget = (folder: string) => {
        for (const [path, watcher] of watchers) {
            if (path !== folder && !path.startsWith(`${folder}/`)) continue
            watcher.close()
            watchers.delete(path)
        }
    }

    const changed = (folder: string, event: string, name: string) => {
        // Removed or renamed away, a watched folder reports it under its own name: its parent reports it too.
        if (event === 'rename' && name === basename(folder) && !statSync(join(root, folder), { throwIfNoEntry: false })) {
            forget(folder)
            return
        }
        const path = folder ? `${folder}/${name}` : name
        note(path)
        // Entries come and go with "rename": a folder that appeared is watched from now on, one that went is forgotten.
        if (event !== 'rename' || name.startsWith('.')) return
        if (statSync(join(root, path), { throwIfNoEntry: false })?.isDirectory()) add(path, true)
        else if (watchers.has(path)) forget(path)
    }

    add('', false)
    return {
        ready: Promise.resolve(),
        close: async () => {
            closed = true
            clearTimeout(quietTimer)
            for (const watcher of watchers.values()) watcher.close()
            watchers.clear()
            await running
        },
    }
}
