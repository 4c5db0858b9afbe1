/**
 * Runs in a worker thread (watch-folder.ts): the watches of every folder below a large catalog's
 * content folder and their first scan (folder-watches.ts), so that their events come to this
 * thread's loop and the thread that serves gets only the changed paths, a batch a turn. At
 * 10,000 levels the first scan's listings and `stat`s are 60,000 system calls, a second of a
 * thread, and starting a watch a folder on the serving thread held each request's turn back.
 */
import { parentPort, workerData } from 'node:worker_threads'
import type { ServedRequests } from '../util/served-requests.js'
import { runWhenIdle } from '../util/thread-priority.js'
import { watchFolders, type WatchReports } from './folder-watches.js'

/** What the worker is started with. */
export type WatchWorkerData = { root: string; readSince: number; served?: ServedRequests }
/** What the serving thread's watch of the root says (`FolderWatches`). */
export type WatchRequest = { found: string } | { rootEntry: string; event: string } | 'rootListed'
/** What the watches say (`WatchReports`). */
export type WatchAnswer =
    { changed: string[] } | { failed: Parameters<WatchReports['failed']>[0] } | 'scanned'

/**
 * A batch of changed paths goes at most this many at a time: the serving thread takes a message
 * whole, in one turn.
 */
const answeredAtOnce = 256
/**
 * The first scan holds this thread's loop at most this long between turns, in which the watches'
 * events are taken: a kernel's queue of them is bounded.
 */
const scanSliceMs = 10

runWhenIdle()

const port = parentPort!
const { root, readSince, served } = workerData as WatchWorkerData
let changed: string[] = []
const send = () => {
    if (changed.length === 0) return
    port.postMessage({ changed } satisfies WatchAnswer)
    changed = []
}
const watches = watchFolders(
    root,
    readSince,
    {
        changed: (path) => {
            // A burst of events in one turn goes as one message, sent once the turn's events are taken.
            if (changed.length === 0) setImmediate(send)
            changed.push(path)
            if (changed.length >= answeredAtOnce) send()
        },
        failed: (error) => port.postMessage({ failed: error } satisfies WatchAnswer),
        scanned: () => {
            send()
            port.postMessage('scanned' satisfies WatchAnswer)
        },
    },
    scanSliceMs,
    served,
)

port.on('message', (request: WatchRequest) => {
    if (request === 'rootListed') watches.rootListed()
    else if ('found' in request) watches.found(request.found)
    else watches.rootEntryChanged(request.rootEntry, request.event)
})
