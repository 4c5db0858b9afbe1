/**
 * Runs in a worker thread (start-snapshot.ts): the `stat` calls that tell whether the item folders
 * a start snapshot holds are unchanged, and those that take the signatures of the folders a new
 * snapshot will hold. They are synchronous, on a core of their own: at a hundred thousand levels
 * they are 600,000 calls, and the promise versions on the main thread cost several times the
 * calls themselves, while the main thread meanwhile reads the snapshot's records.
 */
import { parentPort } from 'node:worker_threads'
import { giveWayToServing } from '../util/thread-priority.js'
import {
    folderChecks,
    type CheckAnswer,
    type CheckRequest,
    type SaveAnswer,
    type SaveRequest,
} from './snapshot-checks.js'

// Nothing waits for this thread before the listening line any more.
giveWayToServing()

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
