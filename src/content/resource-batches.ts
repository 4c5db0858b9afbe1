import { setImmediate } from 'node:timers'
import type { Worker } from 'node:worker_threads'
import { startWorker } from '../util/start-worker.js'
import { ContentError } from './problems.js'
import { type FileWork, type WorkDone, workOn } from './resource-work.js'
import type { BatchAnswer, WorkerReady, WorkFailure } from './resource-worker.js'

type Job = {
    work: FileWork
    /** The file's size when asked for (or `assumedBytes`): a batch is cut short at `bytesPerBatch`. */
    size: number
    resolve: (done: WorkDone) => void
    reject: (error: Error) => void
}

type Helper = {
    worker: Worker
    /** The batches sent and not yet answered, in order: a worker answers them in turn. */
    sent: Job[][]
    /** Whether its modules are loaded: until then, the main thread does small batches itself. */
    ready: boolean
    retirement?: NodeJS.Timeout
}

/**
 * Files asked for during one turn of the event loop below these counts are done on the main
 * thread when no worker runs: a reload of a few files, or a warm start's few changes, never pays
 * a worker's start (tens of milliseconds, more than a few small files' work).
 */
const filesWorthAWorker = 32
const bytesWorthAWorker = 256 * 1024

/**
 * Files in a batch: enough to make a round trip to the worker cheap, few enough that answers
 * come back while the loader reads on; a large file (a long chart) goes with few others.
 */
const filesPerBatch = 32
const bytesPerBatch = 1024 * 1024

/**
 * Batches of these many bytes or more (a long chart: parsing, minifying and gzipping 10 MB takes
 * most of a second) are the worker's alone, which keeps the main thread's turns short.
 */
const workerOnlyBytes = 256 * 1024

/**
 * Bytes of files the worker holds at once: batches of small files enough to last it through a
 * busy turn of the main thread's event loop, or one long chart, which nothing waits behind. The
 * rest wait where either thread can take them.
 */
const bytesInFlight = 512 * 1024

/**
 * What a file of unknown size counts for: about a pack tree's resource (a chart of a KiB or two,
 * audio and images of a few hundred bytes). Such a file is read only when it proves shorter than
 * `workerOnlyBytes`; a longer one comes back with its size and is asked for again as what it is.
 */
const assumedBytes = 1024

const bytesOf = (jobs: Job[]) => jobs.reduce((sum, job) => sum + job.size, 0)

const workerOnly = (batch: Job[]) => bytesOf(batch) >= workerOnlyBytes

/** How long a worker waits idle for the next batch before it is ended. */
const idleWorkerMs = 10_000

/**
 * Reads, makes and hashes resource files in batches, shared between a worker thread and the main
 * thread, so that a first start keeps both cores busy: the worker is sent a few batches at a
 * time, and the main thread takes one in each turn of its event loop while more wait (it has
 * nothing else to do when the items it reads all wait for their files). The files asked for
 * during one turn of the event loop are split into batches together. One worker: a second cost
 * a 10,000-level cold start 80 MiB more and a second of CPU more, for no gain on two cores.
 */
export class ResourceBatches {
    private queue: Job[] = []
    /** Batches neither thread has taken yet, in the order they were asked for. */
    private waiting: Job[][] = []
    private helper: Helper | undefined
    /** Whether the main thread takes a batch in the next turn of the event loop. */
    private sharing = false
    private closed = false

    /**
     * The file's work, done with the other files asked for during this turn of the event loop.
     * Without its `size` (a file the hash cache has no entry for, whose stat is taken as it is
     * read), a file found long (a chart of megabytes) is not read in the batch that found it, so
     * that it never holds up the small files there, but asked for again, as the worker's alone.
     */
    work(work: FileWork, size?: number): Promise<WorkDone> {
        if (size !== undefined) return this.queued(work, size)
        const upTo = Math.min(work.upTo ?? Infinity, workerOnlyBytes - 1)
        return this.queued({ ...work, upTo }, assumedBytes).then((done) =>
            done.hash !== undefined || done.stat.size > (work.upTo ?? Infinity)
                ? done
                : this.queued(work, done.stat.size),
        )
    }

    private queued(work: FileWork, size: number): Promise<WorkDone> {
        return new Promise((resolve, reject) => {
            if (this.queue.push({ work, size, resolve, reject }) === 1)
                setImmediate(() => this.flush())
        })
    }

    /**
     * Ends the worker; the files it held, those still waiting and those asked for after this are
     * done on the main thread.
     */
    async close() {
        this.closed = true
        const helper = this.helper
        this.helper = undefined
        if (helper) {
            helper.worker.removeAllListeners('message')
            this.waiting.unshift(...helper.sent.splice(0))
        }
        this.share()
        if (helper) await this.end(helper)
    }

    /**
     * Ends the worker now if it holds no files: after a start, rather than after `idleWorkerMs`,
     * its heap (grown by long charts) is given back before the watcher's first scan.
     */
    retire() {
        const helper = this.helper
        if (!helper || helper.sent.length || this.waiting.length) return
        this.helper = undefined
        void this.end(helper)
    }

    private flush() {
        const jobs = this.queue
        this.queue = []
        const few = jobs.length < filesWorthAWorker && bytesOf(jobs) < bytesWorthAWorker
        if (this.closed || (!this.helper && few)) {
            for (const job of jobs) workHere(job)
            return
        }
        this.helper ??= this.startHelper()
        this.waiting.push(...batches(jobs))
        this.feed()
        this.share()
    }

    /**
     * Sends the worker, once it takes batches, the first waiting ones: up to `bytesInFlight`, or a
     * long chart alone.
     */
    private feed() {
        const helper = this.helper
        if (!helper?.ready) return
        let bytes = helper.sent.reduce((sum, batch) => sum + bytesOf(batch), 0)
        for (let next = this.waiting[0]; next; next = this.waiting[0]) {
            const fits =
                !helper.sent.length ||
                (!workerOnly(next) &&
                    !helper.sent.some(workerOnly) &&
                    bytes + bytesOf(next) <= bytesInFlight)
            if (!fits) return
            this.waiting.shift()
            bytes += bytesOf(next)
            clearTimeout(helper.retirement)
            helper.worker.ref()
            helper.sent.push(next)
            helper.worker.postMessage(next.map((job) => job.work))
        }
    }

    /**
     * Takes the first waiting batch the main thread may do in the next turn of the event loop,
     * and so on while any wait: every batch once no worker runs.
     */
    private share() {
        if (this.sharing || !this.waiting.some((batch) => this.mayTake(batch))) return
        this.sharing = true
        setImmediate(() => {
            this.sharing = false
            const index = this.waiting.findIndex((batch) => this.mayTake(batch))
            if (index >= 0) for (const job of this.waiting.splice(index, 1)[0]!) workHere(job)
            this.share()
        })
    }

    /** Whether the main thread may do a waiting batch: a short one, or any once no worker runs. */
    private mayTake(batch: Job[]) {
        return !this.helper || !workerOnly(batch)
    }

    private startHelper(): Helper {
        const helper: Helper = {
            worker: startWorker('content/resource-worker'),
            sent: [],
            ready: false,
        }
        const fail = (error: Error) => {
            if (this.helper === helper) this.helper = undefined
            clearTimeout(helper.retirement)
            for (const job of helper.sent.splice(0).flat()) job.reject(error)
            this.share()
        }
        helper.worker
            .on('message', (answer: BatchAnswer | WorkerReady) => {
                if ('ready' in answer) {
                    helper.ready = true
                    this.feed()
                } else this.answered(helper, answer)
            })
            .on('error', fail)
            .on('exit', () => fail(new Error('the worker reading resources stopped')))
        return helper
    }

    private answered(helper: Helper, { done, made }: BatchAnswer) {
        const batch = helper.sent.shift()!
        this.feed()
        if (!helper.sent.length) {
            // An idle worker does not keep the process alive, and gives its memory back after a while.
            helper.worker.unref()
            helper.retirement = setTimeout(() => {
                if (this.helper === helper) this.helper = undefined
                void this.end(helper)
            }, idleWorkerMs).unref()
        }
        const bytes = Buffer.from(made)
        let offset = 0
        batch.forEach((job, index) => {
            const answer = done[index]!
            if ('failed' in answer) return job.reject(errorOf(answer.failed))
            const { stat, hash, length } = answer
            if (length === undefined) return job.resolve({ stat, hash })
            job.resolve({ stat, hash, made: bytes.subarray(offset, (offset += length)) })
        })
    }

    private end(helper: Helper) {
        clearTimeout(helper.retirement)
        helper.worker.removeAllListeners('exit')
        return helper.worker.terminate()
    }
}

/** The jobs in order, cut into batches of at most `filesPerBatch` files and, but for a single file, `bytesPerBatch`. */
function* batches(jobs: Job[]) {
    let batch: Job[] = []
    let bytes = 0
    for (const job of jobs) {
        if (batch.length === filesPerBatch || (batch.length && bytes + job.size > bytesPerBatch)) {
            yield batch
            batch = []
            bytes = 0
        }
        batch.push(job)
        bytes += job.size
    }
    if (batch.length) yield batch
}

const workHere = (job: Job) => {
    try {
        job.resolve(workOn(job.work))
    } catch (error) {
        job.reject(error as Error)
    }
}

/** The error the main thread would have thrown for the file. */
const errorOf = ({ message, code, content }: WorkFailure) =>
    content ? new ContentError(message, content) : Object.assign(new Error(message), { code })
