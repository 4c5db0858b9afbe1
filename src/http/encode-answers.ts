import type { Context, Next } from 'koa'
import { EncodedAnswer, isCompressibleType } from './encoded-answer.js'

/** The answer a request was sent, for the prepared answers to keep; a cache that holds one sets it first. */
export type EncodedState = {
    encodedAnswer?: EncodedAnswer
    /** Whether the response cache had this URL's answer: unset where no response cache runs (pages). */
    askedBefore?: boolean
}

/**
 * How any text answer (JSON, pages) reaches the wire: in the representation the request's
 * Accept-Encoding asks for, with `Vary: Accept-Encoding`, a strong ETag of its own per encoding,
 * and 304 when the request holds that ETag already. A route needs nothing for it: a body that is
 * a string or a Buffer, and a text Content-Type. A body a cache already holds as an
 * `EncodedAnswer` (put in `ctx.state.encodedAnswer`) is compressed only the first time each
 * encoding is asked for; any other body is compressed for this request alone, unless the
 * prepared answers keep it (src/http/prepared-answers.ts); a route may answer so too, with an
 * answer's `body` (one of parts: respond.ts). Other bodies (resources) keep their own ETag and
 * are sent as they are.
 */
export const encodeAnswers = async (ctx: Context, next: Next) => {
    await next()
    const body: unknown = ctx.body
    if (!(typeof body === 'string' || Buffer.isBuffer(body))) return
    const state = ctx.state as EncodedState
    const given = state.encodedAnswer?.holds(body) ? state.encodedAnswer : undefined
    if (ctx.status < 200 || ctx.status >= 300) {
        // An answer of parts stands in the body by an empty buffer (encoded-answer.ts).
        if (given) ctx.body = given.identity.body
        return
    }
    const answer = given ?? answerOf(ctx, body)
    state.encodedAnswer = answer
    const representation = answer.for(ctx.get('Accept-Encoding'))
    if (answer.compressible) ctx.vary('Accept-Encoding')
    ctx.set('ETag', representation.etag)
    if (ctx.fresh) {
        ctx.status = 304
        return
    }
    ctx.body = representation.body
    if (representation.encoding !== 'identity') ctx.set('Content-Encoding', representation.encoding)
}

const answerOf = (ctx: Context, body: string | Buffer) => {
    const bytes = Buffer.isBuffer(body) ? body : Buffer.from(body)
    return new EncodedAnswer(
        bytes,
        ctx.response.get('ETag') || undefined,
        isCompressibleType(ctx.response.type),
    )
}
