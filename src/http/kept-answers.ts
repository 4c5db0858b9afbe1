import type { ItemRenderer } from '../answers/render-item.js'
import { cachesPer } from './answer-caches.js'
import type { ShelfContext } from './request-state.js'
import type { EncodedState } from './encode-answers.js'
import { EncodedAnswer } from './encoded-answer.js'

/** Bytes of kept answers per renderer (one snapshot, locale and source), every encoding counted. */
const budgetBytes = 16 * 1024 * 1024

const cacheFor = cachesPer<ItemRenderer, EncodedAnswer>(
    budgetBytes,
    (entry) => entry.keptBytes + 64,
)

/**
 * Sends a JSON answer kept by what it is of (a board page, a record, a person) rather than by
 * URL: requests that differ in parameters the answer does not read (a client's cache-buster,
 * their order) share it, and it is built, serialized and hashed once, and compressed once per
 * encoding asked for. It is kept per renderer, and so per snapshot, locale and source: a reload
 * makes every answer again. The answer may read the path, the query parameters named in `reads`
 * and the player's configuration, nothing else: an answer that depends on the signed-in player
 * is not one to keep this way.
 */
export const respondKept = <T>(ctx: ShelfContext, reads: readonly string[], build: () => T) => {
    const view = ctx.state.shelf
    const cache = cacheFor(view.renderer)
    const key = [
        ctx.path,
        view.configurationKey,
        ...reads.map((name) => view.query.get(name) ?? ''),
    ].join('\n')
    let answer = cache.get(key)
    if (!answer) {
        answer = new EncodedAnswer(Buffer.from(JSON.stringify(build())), undefined, true).keep()
        cache.set(key, answer)
    }
    ctx.type = 'application/json; charset=utf-8'
    ctx.body = answer.identity.body
    ;(ctx.state as EncodedState).encodedAnswer = answer
}
