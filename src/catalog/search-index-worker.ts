/**
 * Runs in a worker thread (worker-built-index.ts): builds a type's search index from the texts
 * the serving thread made of its items. At 10,000 levels building one held the serving thread
 * 0.6 s of CPU in slices through the first scan (ten times that at 100,000, whose garbage made
 * the longest collections of the start), on a machine of two cores whose other one was idle.
 */
import { parentPort } from 'node:worker_threads'
import { runWhenIdle } from '../util/thread-priority.js'
import { SearchIndex, type BuiltIndex } from './search-index.js'

/** The next items' texts, and where their titles begin and end (two numbers an item); then `built`; then `next` for each answer. */
export type IndexRequest = { texts: string[]; titles: Int32Array } | 'built' | 'next'
/** The index's words, a chunk at a time, then its arrays (transferred), each asked for with `next`. */
export type IndexAnswer = { words: string[] } | { built: Omit<BuiltIndex, 'words'> }

/**
 * Words a message: the serving thread takes a message whole, in one turn, and makes a string of
 * each word it holds.
 */
const wordsAtOnce = 8192

runWhenIdle()

const port = parentPort!
let index = new SearchIndex()
let answers: Generator<{ answer: IndexAnswer; transfer?: ArrayBuffer[] }> | undefined

/** The built index in answers, sent one a `next`: a port delivers the messages waiting in one turn. */
function* handOver(built: SearchIndex) {
    const { built: arrays, words, transfer } = built.handOver()
    for (let at = 0; at < words.length; at += wordsAtOnce)
        yield { answer: { words: words.slice(at, at + wordsAtOnce) } }
    yield { answer: { built: arrays }, transfer }
}

port.on('message', (request: IndexRequest) => {
    if (request === 'next') {
        const { answer, transfer } = answers!.next().value!
        port.postMessage(answer satisfies IndexAnswer, transfer)
    } else if (request === 'built') {
        answers = handOver(index)
        index = new SearchIndex()
    } else {
        const { texts, titles } = request
        for (let at = 0; at < texts.length; at++)
            index.addText(texts[at]!, { start: titles[2 * at]!, end: titles[2 * at + 1]! })
    }
})
