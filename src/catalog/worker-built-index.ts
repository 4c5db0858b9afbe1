import type { Worker } from 'node:worker_threads'
import { startWorker } from '../util/start-worker.js'
import type { TurnSlices } from '../util/turn-slices.js'
import type { CatalogItem } from './catalog.js'
import type { IndexAnswer, IndexRequest } from './search-index-worker.js'
import { SearchIndex } from './search-index.js'
import { composeSearchText, titleSpanOf, type TitleSpan } from './search-text.js'

/**
 * A worker that builds search indexes (search-index-worker.ts), one at a time, for the serving
 * thread, which makes the items' texts (it keeps them for ranking, and sending the items would
 * cost more than making them) and takes in the index as the worker's arrays, moved, not copied.
 */
export class IndexBuilder {
    private readonly worker: Worker
    /** Rejected when the worker fails or stops. */
    private readonly failed: Promise<never>

    constructor() {
        this.worker = startWorker('catalog/search-index-worker')
        // A server closed mid-build does not wait for it.
        this.worker.unref()
        this.failed = new Promise((_, reject) => {
            this.worker.once('error', reject)
            this.worker.once('exit', (code) =>
                reject(new Error(`the search index worker stopped (exit code ${code})`)),
            )
        })
        this.failed.catch(() => {})
    }

    /** The index of `list`, its texts made a slice at a time. */
    async build(list: readonly CatalogItem[], slices: TurnSlices): Promise<SearchIndex> {
        const slots = new Map<CatalogItem, number>()
        const texts: string[] = []
        const titleSpans: TitleSpan[] = []
        let sent = 0
        // Each slice's texts as they are made, so that the worker builds while the next are.
        const send = () => {
            const titles = new Int32Array(2 * (texts.length - sent))
            for (let at = sent; at < texts.length; at++) {
                titles[2 * (at - sent)] = titleSpans[at]!.start
                titles[2 * (at - sent) + 1] = titleSpans[at]!.end
            }
            this.post({ texts: texts.slice(sent), titles }, [titles.buffer])
            sent = texts.length
        }
        for (const item of list) {
            slots.set(item, slots.size)
            texts.push(composeSearchText(item))
            titleSpans.push(titleSpanOf(item))
            if (slices.due()) {
                send()
                await slices.pause()
            }
        }
        send()
        this.post('built')
        const words: string[][] = []
        for (;;) {
            const answer = await this.next()
            if ('words' in answer) words.push(answer.words)
            else
                return new SearchIndex(
                    { ...answer.built, words: ([] as string[]).concat(...words) },
                    { slots, texts, titleSpans },
                )
        }
    }

    close() {
        void this.worker.terminate()
    }

    private post(request: IndexRequest, transfer?: ArrayBuffer[]) {
        this.worker.postMessage(request, transfer)
    }

    private next() {
        return Promise.race([
            new Promise<IndexAnswer>((resolve) => {
                this.worker.once('message', resolve)
                this.post('next')
            }),
            this.failed,
        ])
    }
}
