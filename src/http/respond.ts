import type { Context } from 'koa'
import type { EncodedState } from './encode-answers.js'
import { EncodedAnswer } from './encoded-answer.js'

/**
 * Sends a JSON body serialized once here, so that the ETag middleware hashes the same string
 * that goes on the wire. The type parameter is where responses meet `@sonolus/core`'s types.
 */
export const respond = <T>(ctx: Context, body: T) => {
    ctx.type = 'application/json; charset=utf-8'
    ctx.body = JSON.stringify(body)
}

/**
 * Sends a body with an `items` array whose entries are JSON already, in UTF-8 and each in parts
 * (a list page from its items' stored JSON): the rest of the body is serialized here and the items' bytes are put
 * in as they are. The parts go as one answer (encoded-answer.ts), joined in a buffer of their own
 * only when sent as they are or kept: a typed search asked compressed is compressed from them.
 */
export const respondWithItems = <T extends { items: unknown[] }>(
    ctx: Context,
    body: Omit<T, 'items'>,
    itemsJson: readonly (readonly Buffer[])[],
) => {
    const rest = JSON.stringify(body)
    const parts: Buffer[] = [itemsOpen]
    itemsJson.forEach((json, at) => {
        if (at > 0) parts.push(comma)
        parts.push(...json)
    })
    parts.push(Buffer.from(rest === '{}' ? ']}' : `],${rest.slice(1)}`))
    const answer = new EncodedAnswer(parts, undefined, true)
    ctx.type = 'application/json; charset=utf-8'
    ctx.body = answer.body
    ;(ctx.state as EncodedState).encodedAnswer = answer
}

const itemsOpen = Buffer.from('{"items":[')
const comma = Buffer.from(',')
