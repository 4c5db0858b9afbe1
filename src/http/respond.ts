import type { Context } from 'koa'

/**
 * Sends a JSON body serialized once here, so that the ETag middleware hashes the same string
 * that goes on the wire. The type parameter is where responses meet `@sonolus/core`'s types.
 */
export const respond = <T>(ctx: Context, body: T) => {
    ctx.type = 'application/json; charset=utf-8'
    ctx.body = JSON.stringify(body)
}

/**
 * Sends a body with an `items` array whose entries are JSON already (a list page from its items'
 * stored JSON): the rest of the body is serialized here and the items are put in as they are.
 */
export const respondWithItems = <T extends { items: unknown[] }>(
    ctx: Context,
    body: Omit<T, 'items'>,
    itemsJson: readonly string[],
) => {
    const rest = JSON.stringify(body)
    ctx.type = 'application/json; charset=utf-8'
    ctx.body = `{"items":[${itemsJson.join(',')}]${rest === '{}' ? '}' : `,${rest.slice(1)}`}`
}
