import type { Catalog, CatalogItem } from '../catalog/catalog.js'
import type { AnyItem } from '../answers/render-item.js'
import { contentTypeInfos, type ContentType } from '../content/item-types.js'
import { pageLink, resourceLink, type PageRequest } from './page-frame.js'
import { format, readableText } from './ui-text.js'

/** An item as a list, a section or a reference shows it. */
export type ItemCard = {
    href: string
    type: ContentType
    title: string
    /** Artists of a level, the subtitle of anything else. */
    subtitle: string
    author: string
    rating?: string
    tags: string[]
    image?: string
}

export const itemPath = (type: ContentType, name: string) =>
    `/${contentTypeInfos[type].plural}/${encodeURIComponent(name)}`

/** The picture of an item: a level's cover, a thumbnail, or a replay's level's cover. */
export const itemImage = (
    catalog: Catalog,
    request: PageRequest,
    item: CatalogItem,
): ReturnType<typeof resourceLink> => {
    const rendered = request.view.renderer.item(
        item as CatalogItem & { type: ContentType },
    ) as AnyItem
    if ('cover' in rendered) return resourceLink(request, rendered.cover)
    if ('thumbnail' in rendered) return resourceLink(request, rendered.thumbnail)
    const level = item.type === 'replay' ? catalog.reference(item, 'level') : null
    return level ? itemImage(catalog, request, level) : undefined
}

/** Tags as a card shows them: their words, or their icon's name when they have none. */
export const cardTags = (tags: readonly { title?: string; icon?: string }[]) =>
    tags.map((tag) => (tag.title ? readableText(tag.title) : (tag.icon ?? ''))).filter(Boolean)

export const itemCard = (request: PageRequest, item: CatalogItem): ItemCard => {
    const rendered = request.view.renderer.item(
        item as CatalogItem & { type: ContentType },
    ) as AnyItem
    return {
        href: pageLink(request, itemPath(item.type, item.name)),
        type: item.type,
        title: rendered.title,
        subtitle:
            'artists' in rendered
                ? rendered.artists
                : 'subtitle' in rendered
                  ? rendered.subtitle
                  : '',
        author: rendered.author,
        rating: 'rating' in rendered ? format(request.t.rating, rendered.rating) : undefined,
        tags: cardTags(rendered.tags),
        image: itemImage(request.catalog, request, item),
    }
}
