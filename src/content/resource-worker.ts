/**
 * Runs in a worker thread (resource-batches.ts): reads, makes and hashes a batch of resource
 * files at a time, and hands back the bytes made of all of them in one buffer, moved
 * rather than copied. A file is a few hundred bytes, so a thread's round trip for each would cost
 * more than its work.
 */
import { parentPort } from 'node:worker_threads'
import { ContentError } from './problems.js'
import { type FileStat, type FileWork, workOn } from './resource-work.js'

/** Why a file could not be made: a problem of its content, or of reading it (with the system's code). */
export type WorkFailure = {
    message: string
    code?: string
    content?: ContentError['position']
}

/**
 * What each file of a batch came to, in the batch's order: its stat, hash and the length of the
 * bytes made of it (which follow each other in `made`), or why not.
 */
export type BatchAnswer = {
    done: ({ stat: FileStat; hash?: string; length?: number } | { failed: WorkFailure })[]
    made: ArrayBuffer
}

/** Said once the worker's modules are loaded and it takes batches. */
export type WorkerReady = { ready: true }

const failureOf = (error: unknown): WorkFailure =>
    error instanceof ContentError
        ? { message: error.message, content: error.position }
        : {
              message: (error as Error).message ?? String(error),
              code: (error as NodeJS.ErrnoException).code,
          }

parentPort!.on('message', (batch: FileWork[]) => {
    const done: BatchAnswer['done'] = []
    const made: Buffer[] = []
    for (const work of batch) {
        try {
            const { stat, hash, made: bytes } = workOn(work)
            if (bytes) made.push(bytes)
            done.push({ stat, hash, length: bytes?.length })
        } catch (error) {
            done.push({ failed: failureOf(error) })
        }
    }
    // A buffer of its own, not a slice of Node's shared pool: only a whole buffer can be moved.
    const all = Buffer.allocUnsafeSlow(made.reduce((sum, bytes) => sum + bytes.length, 0))
    let offset = 0
    for (const bytes of made) offset += bytes.copy(all, offset)
    parentPort!.postMessage({ done, made: all.buffer } satisfies BatchAnswer, [all.buffer])
})

parentPort!.postMessage({ ready: true } satisfies WorkerReady)
