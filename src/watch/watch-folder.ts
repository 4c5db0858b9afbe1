import { watch } from 'chokidar'
import { statSync } from 'node:fs'
import { join, relative, sep } from 'node:path'
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

/** How long after a batch its files are looked at again: past chokidar's 50 ms change throttle. */
const recheckMs = 75

/** Size and modification time: what a second save within chokidar's throttle would change. */
const fingerprint = (root: string, path: string) => {
    const info = statSync(join(root, path), { throwIfNoEntry: false })
    return info ? `${info.size}:${info.mtimeMs}` : 'missing'
}

const describeWatchError = (error: NodeJS.ErrnoException) =>
    error.code === 'ENOSPC'
        ? "cannot watch every file: the system's limit of file watchers is reached (fs.inotify.max_user_watches; " +
          'Shelf needs about one per file and folder). Changes to some files will show only after a restart. ' +
          'Raise the limit (sudo sysctl fs.inotify.max_user_watches=1048576) or serve with --no-watch.'
        : `watching the folder failed (${error.message}); changes may show only after a restart`

/**
 * Watches a folder and hands over batches of changed paths (relative, `/`-separated). A burst,
 * such as `git checkout` of a branch or an editor's write-then-rename save, becomes one batch;
 * editor leftovers (swap, backup, temporary and dot files) never count as changes. Batches run
 * one at a time: changes arriving during one are gathered into the next.
 */
export const watchFolder = (root: string, onBatch: (paths: string[]) => Promise<void>, options: WatchOptions = {}): FolderWatcher => {
    const quietMs = options.quietMs ?? 20
    const maxWaitMs = options.maxWaitMs ?? 200
    const pending = new Set<string>()
    let quietTimer: NodeJS.Timeout | undefined
    let batchStarted = 0
    let running: Promise<void> = Promise.resolve()

    const flush = () => {
        clearTimeout(quietTimer)
        quietTimer = undefined
        const paths = [...pending]
        pending.clear()
        const seen = new Map(paths.map((path) => [path, fingerprint(root, path)]))
        running = running
            .then(() => onBatch(paths))
            .then(() => {
                // chokidar drops a second change of a file within 50 ms of the first, which a
                // formatter or script saving twice runs into: look once more after that window.
                setTimeout(() => {
                    for (const [path, before] of seen) if (fingerprint(root, path) !== before) note(join(root, path))
                }, recheckMs).unref()
            })
            .catch((error: unknown) => console.error('shelf: reload failed:', error))
    }

    let closed = false
    const note = (path: string) => {
        if (closed) return
        const relativePath = relative(root, path).split(sep).join('/')
        if (relativePath === '' || relativePath.split('/').some(isIgnored)) return
        if (pending.size === 0) batchStarted = Date.now()
        pending.add(relativePath)
        clearTimeout(quietTimer)
        const wait = Math.max(0, Math.min(quietMs, batchStarted + maxWaitMs - Date.now()))
        quietTimer = setTimeout(flush, wait)
    }

    const watcher = watch(root, {
        ignoreInitial: true,
        // Dot folders (the cache, .git) are skipped whole rather than watched and filtered.
        ignored: (path) => relative(root, path).split(sep).some((segment) => segment.startsWith('.')),
    })
    watcher.on('all', (_event, path) => note(path))
    // A watcher error must never take the server down: say once what it means and keep serving.
    const reported = new Set<string>()
    watcher.on('error', (error) => {
        const code = (error as NodeJS.ErrnoException).code ?? 'unknown'
        if (reported.has(code)) return
        reported.add(code)
        console.error(`shelf: ${describeWatchError(error as NodeJS.ErrnoException)}`)
    })
    return {
        ready: new Promise((resolve) => watcher.once('ready', () => resolve())),
        close: async () => {
            closed = true
            clearTimeout(quietTimer)
            await watcher.close()
            await running
        },
    }
}
