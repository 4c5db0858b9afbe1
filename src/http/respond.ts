import type { Context } from 'koa'
import { createHash } from 'node:crypto'
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
    const end = Buffer.from(rest === '{}' ? ']}' : `],${rest.slice(1)}`)
    parts.push(end)
    const answer = new EncodedAnswer(parts, etagOfItems(parts, itemsJson, end), true)
    ctx.type = 'application/json; charset=utf-8'
    ctx.body = answer.body
    ;(ctx.state as EncodedState).encodedAnswer = answer
}

/** Each list item's SHA-1, by its parts, which the renderer keeps as one array as long as it keeps the item. */
const itemDigests = new WeakMap<readonly Buffer[], Buffer>()

const digestOf = (json: readonly Buffer[]) => {
    let digest = itemDigests.get(json)
    if (!digest) {
        const hash = createHash('sha1')
        for (const part of json) hash.update(part)
        digest = hash.digest()
        itemDigests.set(json, digest)
    }
    return digest
}

/**
 * A strong ETag of a list answer, made from its items' digests and the rest of the answer rather
 * than from its bytes: the bytes are the items' JSON in a fixed frame, so equal bytes have equal
 * digests and rest, and other bytes other ones. Hashing a page's 96 KB for every search was 4–5%
 * of the quick-search mix's CPU at 100,000 levels; an item's digest is made once, while the
 * renderer keeps its JSON. The length in front is as the etag package writes it.
 */
const etagOfItems = (
    parts: readonly Buffer[],
    itemsJson: readonly (readonly Buffer[])[],
    end: Buffer,
) => {
    const hash = createHash('sha1')
    for (const json of itemsJson) hash.update(digestOf(json))
    hash.update(end)
    const length = parts.reduce((sum, part) => sum + part.length, 0)
    return `"${length.toString(16)}-${hash.digest('base64').slice(0, 27)}"`
}

const itemsOpen = Buffer.from('{"items":[')
const comma = Buffer.from(',')
