import type { Context, Next } from 'koa'
import type { Catalog } from '../catalog/catalog.js'
import { cachesPer } from './answer-caches.js'
import { AskedBefore } from './asked-before.js'
import type { EncodedState } from './encode-answers.js'
import { EncodedAnswer } from './encoded-answer.js'
import type { ShelfContext } from './request-state.js'

/** Bytes of answers kept per snapshot, compressed ones included: the most asked-for pages, not every page of every search. */
const budgetBytes = 32 * 1024 * 1024

/**
 * Typed searches are a long tail: kept, their answers would push out the pages that repeat and
 * keep the collector busy, for a hit that rarely comes. A search is quick on its own.
 */
export const worthKeeping = (ctx: Context) => !ctx.query.keywords

const cacheFor = cachesPer<Catalog, EncodedAnswer>(budgetBytes, (entry) => entry.keptBytes + 64)
/** Shared by every snapshot: a URL asked for before a reload is as likely to be asked for after it. */
const askedBefore = new AskedBefore(1 << 16)

/**
 * A snapshot never changes, so the answer to a GET is the same until the next reload: asked for a
 * second time (`AskedBefore`), it is kept, and from then on it is not rendered, serialized and
 * hashed for its ETag again, and it is compressed once per encoding asked for,
 * and revalidations are answered from the stored ETags. The key is everything an answer depends
 * on today: the URL (path, locale, configuration, search values), the source address and the
 * signed-in player. Answers that depend on state outside the snapshot (rooms) are marked
 * `Cache-Control: no-store` and are not kept.
 */
export const cachedResponses = async (ctx: ShelfContext, next: Next) => {
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return next()
    if (!worthKeeping(ctx)) return next()
    const { catalog, renderer, user } = ctx.state.shelf
    const cache = cacheFor(catalog)
    // What a player is offered to do (their items' actions, their comments' delete) is theirs alone.
    const key = `${renderer.source}\n${user?.id ?? ''}\n${ctx.url}`
    const state = ctx.state as EncodedState
    const hit = cache.get(key)
    state.askedBefore = hit !== undefined || askedBefore.note(key)
    if (hit) {
        ctx.type = 'application/json; charset=utf-8'
        ctx.body = hit.identity.body
        state.encodedAnswer = hit
        return
    }
    await next()
    const answered: unknown = ctx.body
    if (
        ctx.status !== 200 ||
        !(typeof answered === 'string' || Buffer.isBuffer(answered)) ||
        !ctx.response.type.startsWith('application/json')
    )
        return
    if (String(ctx.response.get('Cache-Control') ?? '').includes('no-store')) return
    // An answer kept by what it is of (kept-answers.ts), or of parts (respond.ts): the URL shares it.
    const given = state.encodedAnswer?.holds(answered) ? state.encodedAnswer : undefined
    const body = Buffer.isBuffer(answered) ? answered : Buffer.from(answered)
    // Compressed as a kept answer from the first ask on, so that each ask gets the same bytes for one ETag.
    const entry = (given ?? new EncodedAnswer(body, undefined, true)).keep()
    if (state.askedBefore) cache.set(key, entry)
    ctx.body = entry.body
    state.encodedAnswer = entry
}
