/**
 * Runs in a worker thread (watch-folder.ts): the first scan's listing and `stat` of every folder
 * the main thread has begun to watch. At 10,000 levels these are 60,000 system calls, a second of
 * a thread; made on the main thread, between requests, they held each request's turn back.
 */
import { setPriority } from 'node:os'
import { parentPort, workerData } from 'node:worker_threads'
import { scanFolder } from './folder-changes.js'

/** What the worker is started with. */
export type ScanWorkerData = { root: string; readSince: number }
/** The folders to list, each watched already. */
export type ScanRequest = string[]
/** What was found since the last answer, and how many of the folders asked are done. */
export type ScanAnswer = { found: string[]; changed: string[]; done: number }

/**
 * An answer goes at most this many paths at a time: the main thread takes an answer whole, as one
 * step of the first scan's slice (watch-folder.ts), so its size bounds how far a step may run past
 * the slice's end.
 */
const answeredAtOnce = 128

/**
 * The scan gives way to the threads that answer requests: on Linux a priority is a thread's own
 * (elsewhere it is the whole process's, which is left alone).
 */
const niceness = 10
if (process.platform === 'linux') setPriority(0, niceness)

const { root, readSince } = workerData as ScanWorkerData
let answer: ScanAnswer = { found: [], changed: [], done: 0 }
const send = () => {
    parentPort!.postMessage(answer)
    answer = { found: [], changed: [], done: 0 }
}
const sendWhenFull = () => {
    if (answer.found.length + answer.changed.length >= answeredAtOnce) send()
}
const findings = {
    folder: (path: string) => {
        answer.found.push(path)
        sendWhenFull()
    },
    changed: (path: string) => {
        answer.changed.push(path)
        sendWhenFull()
    },
}

parentPort!.on('message', (folders: ScanRequest) => {
    for (const folder of folders) {
        scanFolder(root, folder, readSince, findings)
        answer.done++
    }
    send()
})
