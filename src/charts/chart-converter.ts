import { fileURLToPath } from 'node:url'
import type { Worker } from 'node:worker_threads'
import { jsonErrorPosition } from '../util/json-position.js'
import { startWorker } from '../util/start-worker.js'
import { ChartError } from './chart-error.js'
import type { ChartFormat } from './chart-formats.js'
import type { ConversionStarted, ConvertAnswer, ConvertRequest } from './chart-worker.js'
import type { EnginePackage } from './engine-packages.js'

export type ConversionLimits = {
    /**
     * How long one chart may take to convert, from when the package's converter starts on it (a
     * worker's start and the package's loading are not the chart's doing); past it the worker is
     * ended and the chart refused.
     */
    timeoutMs: number
    /** The worker's heap; a chart that needs more is refused. */
    memoryMb: number
    /** The largest chart file converted (the loader checks): a bigger one is refused unread. */
    sourceBytes: number
    /** The most entities a converted level may have: past it the level is refused, not served. */
    entities: number
}

/**
 * A 5,000-note chart converts in well under a second and a few MB, into about as many entities;
 * these leave a wide margin.
 */
export const defaultConversionLimits: ConversionLimits = {
    timeoutMs: 10_000,
    memoryMb: 256,
    sourceBytes: 8 * 1024 * 1024,
    entities: 100_000,
}

/** Converted LevelData, gzipped as served. */
export type Converted = { bytes: Buffer; entities: number }

/** The protocol's LevelData schema, in Shelf's schemas/ (two folders up from src/charts and dist/charts). */
const levelDataSchema = fileURLToPath(
    new URL('../../schemas/level-data.schema.json', import.meta.url),
)

/** How long a worker may take to start and load a package, on a machine however busy. */
const startupMs = 120_000

/** How long a worker waits idle for the next chart before it is ended. */
const idleWorkerMs = 60_000

type Job = { request: ConvertRequest; done: (answer: ConvertAnswer) => void }

/**
 * Converts charts in worker threads, off the event loop: a few workers, each converting one chart
 * at a time, kept between charts (starting one costs more than a small chart). A chart that takes
 * too long ends its worker, as does one that runs it out of memory; the next chart gets a new one.
 */
export class ChartConverter {
    private readonly idle: Worker[] = []
    /** When each idle worker is ended: a worker holds its heap, which a server that converts no chart for a while gives back. */
    private readonly retirements = new Map<Worker, NodeJS.Timeout>()
    private busy = 0
    private readonly queue: Job[] = []
    private closed = false

    constructor(
        readonly limits: ConversionLimits = defaultConversionLimits,
        private readonly maxWorkers = 2,
    ) {}

    /** The chart converted by the package's own functions; a ChartError saying why not. */
    async convert(pack: EnginePackage, format: ChartFormat, source: Buffer): Promise<Converted> {
        const answer = await new Promise<ConvertAnswer>((done) => {
            this.queue.push({
                request: {
                    entry: pack.entry,
                    packageName: pack.name,
                    format: format.format,
                    source,
                    maxEntities: this.limits.entities,
                },
                done,
            })
            this.next()
        })
        if (answer.ok) return { bytes: Buffer.from(answer.bytes), entities: answer.entities }
        // JSON's syntax errors say where; the converters do not.
        const position = answer.message.startsWith('invalid JSON')
            ? jsonErrorPosition(source.toString('utf8'), new Error(answer.message))
            : {}
        throw new ChartError(`${format.title} not converted: ${answer.message}`, position)
    }

    /** Ends the workers; conversions asked for after this are refused. */
    async close() {
        this.closed = true
        await Promise.all(this.idle.splice(0).map((worker) => worker.terminate()))
    }

    private next() {
        while (this.queue.length && (this.idle.length || this.busy < this.maxWorkers)) {
            const job = this.queue.shift()!
            if (this.closed) {
                job.done({ ok: false, message: 'the server is closing' })
                continue
            }
            const idle = this.idle.pop()
            if (idle) clearTimeout(this.retirements.get(idle))
            this.run(idle ?? this.startWorker(), job)
        }
    }

    private retire(worker: Worker) {
        const index = this.idle.indexOf(worker)
        if (index < 0) return
        this.idle.splice(index, 1)
        void worker.terminate()
    }

    private startWorker() {
        const worker = startWorker('charts/chart-worker', {
            workerData: { schema: levelDataSchema },
            resourceLimits: { maxOldGenerationSizeMb: this.limits.memoryMb },
        })
        // A worker that stops while idle is not handed the next chart.
        worker.once('exit', () => {
            const index = this.idle.indexOf(worker)
            if (index >= 0) this.idle.splice(index, 1)
            clearTimeout(this.retirements.get(worker))
            this.retirements.delete(worker)
        })
        return worker
    }

    private run(worker: Worker, job: Job) {
        this.busy++
        // A busy worker keeps the process alive (`shelf check` waits for its answer); an idle one does not.
        worker.ref()
        let settled = false
        const finish = (answer: ConvertAnswer, reusable: boolean) => {
            if (settled) return
            settled = true
            clearTimeout(timer)
            worker.off('message', onMessage).off('error', onError).off('exit', onExit)
            this.busy--
            if (reusable && !this.closed) {
                worker.unref()
                this.idle.push(worker)
                this.retirements.set(
                    worker,
                    setTimeout(() => this.retire(worker), idleWorkerMs).unref(),
                )
            } else void worker.terminate()
            job.done(answer)
            this.next()
        }
        const onMessage = (message: ConvertAnswer | ConversionStarted) => {
            if (!('started' in message)) return finish(message, true)
            clearTimeout(timer)
            timer = setTimeout(
                () =>
                    finish(
                        {
                            ok: false,
                            message: `converting it took longer than ${this.limits.timeoutMs / 1000} s: refused`,
                        },
                        false,
                    ),
                this.limits.timeoutMs,
            )
        }
        const onError = (error: Error & { code?: string }) =>
            finish(
                {
                    ok: false,
                    message:
                        error.code === 'ERR_WORKER_OUT_OF_MEMORY'
                            ? `converting it needed more than ${this.limits.memoryMb} MB: refused`
                            : `the converter failed: ${error.message}`,
                },
                false,
            )
        const onExit = () => finish({ ok: false, message: 'the converter stopped' }, false)
        // Until the converter starts, the worker is starting or loading the package: a wide bound.
        let timer = setTimeout(
            () =>
                finish(
                    {
                        ok: false,
                        message: `the converter did not start within ${startupMs / 1000} s`,
                    },
                    false,
                ),
            startupMs,
        )
        worker.on('message', onMessage).on('error', onError).on('exit', onExit)
        worker.postMessage(job.request)
    }
}
