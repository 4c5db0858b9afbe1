import type { CatalogItem } from '../catalog/catalog.js'
import {
    isContentType,
    typeFromPlural,
    type ContentType,
    type ProtocolType,
} from '../content/item-types.js'
import { notFound } from './http-error.js'
import type { ShelfContext } from './request-state.js'

/** The `{type}` path segment as a protocol type; anything else is a 404 naming the known ones. */
export const protocolTypeParam = (ctx: ShelfContext): ProtocolType => {
    const plural = String(ctx.params.type)
    return (
        typeFromPlural(plural) ??
        notFound(
            `unknown item type "${plural}": this server has posts, playlists, levels, skins, backgrounds, effects, particles, engines, replays, rooms and users`,
        )
    )
}

/** The content type in the path; rooms are made by their own routes, and users are not made here. */
export const contentTypeParam = (ctx: ShelfContext): ContentType => {
    const type = protocolTypeParam(ctx)
    return isContentType(type) ? type : notFound(`${type}s cannot be created here`)
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

/** The leaderboard named in the path, on the item named in the path. */
export const leaderboardParam = (ctx: ShelfContext) => {
    const item = itemParam(ctx)
    const name = String(ctx.params.leaderboardName)
    return (
        ctx.state.shelf.catalog.leaderboardsOf(item).find((entry) => entry.name === name) ??
        notFound(`leaderboard "${name}" not found on ${item.type} "${item.name}"`)
    )
}
