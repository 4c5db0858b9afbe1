import { notFound } from './http-error.js'
import type { Context } from 'koa'
import type { CatalogItem } from '../catalog/catalog.js'
import {
    isContentType,
    typeFromPlural,
    type ContentType,
    type ProtocolType,
} from '../content/item-types.js'
import type { ShelfContext } from './request-state.js'

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

/** The `{type}` path segment as a protocol type; anything else is a 404 naming the known ones. */
export const protocolTypeParam = (ctx: Context): ProtocolType => {
    const plural = String(ctx.params.type)
    return (
        typeFromPlural(plural) ??
        notFound(
            `unknown item type "${plural}": this server has posts, playlists, levels, skins, backgrounds, effects, particles, engines, replays, rooms and users`,
        )
    )
}

/** The item named in the path, which must be a content item that exists. */
export const itemParam = (ctx: ShelfContext): CatalogItem & { type: ContentType } => {
    const type = protocolTypeParam(ctx)
    const name = String(ctx.params.itemName)
    const item = isContentType(type) ? ctx.state.shelf.catalog.get(type, name) : undefined
    return (
        (item as (CatalogItem & { type: ContentType }) | undefined) ??
        notFound(`${type} "${name}" not found`)
    )
}
