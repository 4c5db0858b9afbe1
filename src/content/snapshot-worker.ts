/**
 * Runs in a worker thread (start-snapshot.ts): the `stat` calls that tell whether the item folders
 * a start snapshot holds are unchanged, and those that take the signatures of the folders a new
 * snapshot will hold. They are synchronous, on a core of their own: at a hundred thousand levels
 * they are 600,000 calls, and the promise versions on the main thread cost several times the
 * calls themselves, while the main thread meanwhile reads the snapshot's records.
 */
import { readlinkSync } from 'node:fs'
import { constants, setPriority } from 'node:os'
import { parentPort } from 'node:worker_threads'
import {
    folderChecks,
    type CheckAnswer,
    type CheckRequest,
    type SaveAnswer,
    type SaveRequest,
} from './snapshot-checks.js'

/**
 * Nothing waits for this thread before the listening line any more: on Linux it gives way to the
 * main thread and V8's collector (a thread's own nice value, by its id in /proc/thread-self), with
 * which it shared two cores. Below normal rather than lowest: on a machine busy with other
 * processes the lowest let the checks of 100,000 levels take 80 s. Elsewhere it runs as it is.
 */
try {
    const thread = Number(readlinkSync('/proc/thread-self').split('/').pop())
    setPriority(thread, constants.priority.PRIORITY_BELOW_NORMAL)
} catch {
    // No /proc, or a system that sets priorities per process only.
}

parentPort!.on('message', (message: CheckRequest | SaveRequest) => {
    if ('check' in message) {
        parentPort!.postMessage({
            checked: folderChecks.check(message.check),
        } satisfies CheckAnswer)
        return
    }
    folderChecks.save(message.save).then(
        (saved) => parentPort!.postMessage(saved satisfies SaveAnswer),
        (error: unknown) =>
            parentPort!.postMessage({ failed: (error as Error).message } satisfies SaveAnswer),
    )
})
