import type { ServerItemDetails, ServerItemSection } from '@sonolus/core'
import type { Catalog, CatalogItem } from '../catalog/catalog.js'
import { contentTypeInfos, type ContentType } from '../content/item-types.js'
import { itemLocation } from '../writes/content-writer.js'
import { mayModify } from '../writes/permissions.js'
import { leaderboardEntry, leaderboardsOf } from './leaderboards.js'
import { renderForms } from './forms.js'
import type { AnyItem } from './render-item.js'
import type { RequestView } from './request-view.js'
import { renderSection, sectionSize } from './sections.js'

/** E12: one item's page, with what relates to it and what the player may do to it. */
export const itemDetails = (
    view: RequestView,
    item: CatalogItem & { type: ContentType },
    writable: boolean,
): ServerItemDetails<AnyItem> => ({
    item: view.renderer.item(item),
    description: view.renderer.optionalText(item.fields.description),
    actions:
        writable && mayModify(view.user, item.fields.authorId, view.catalog.settings.admins)
            ? renderForms(view.catalog.settings.types[item.type].actions, view.renderer)
            : [],
    hasCommunity: hasCommunity(view.catalog, item, writable),
    leaderboards: leaderboardsOf(view.catalog, item).map((leaderboard) =>
        leaderboardEntry(view, leaderboard),
    ),
    sections: detailSections(view, item),
})

/** Whether the item has comments to read, or a place to write one. Single-file posts have no folder for them. */
export const hasCommunity = (catalog: Catalog, item: CatalogItem, writable: boolean) =>
    item.comments.length > 0 ||
    (writable &&
        catalog.settings.types[item.type].community.length > 0 &&
        itemLocation(item).folder !== undefined)

/** Section titles are the app's own text keys, so every player reads them in their language. */
export const usedByTitles: Record<ContentType, string> = {
    post: '#POST',
    playlist: '#PLAYLIST',
    level: '#LEVEL',
    skin: '#SKIN',
    background: '#BACKGROUND',
    effect: '#EFFECT',
    particle: '#PARTICLE',
    engine: '#ENGINE',
    replay: '#REPLAY',
}

export const detailSections = (view: RequestView, item: CatalogItem): ServerItemSection[] => {
    // Related items follow the rules of lists: no unlisted items, and the player's configuration
    // applies. A section shows a few, so the scan stops as soon as it has them.
    const related = (items: Iterable<CatalogItem>) =>
        firstMatching(
            items,
            sectionSize,
            (other) =>
                other !== item &&
                !other.fields.unlisted &&
                view.configurationFilters(other.type).every((filter) => filter(other)),
        )
    const sections: ServerItemSection[] = []
    const sameAuthor = related(view.catalog.byAuthor(item))
    if (sameAuthor.length)
        sections.push(
            renderSection(view, item.type, sameAuthor, { title: '#SAME_AUTHOR', icon: 'user' }),
        )
    for (const [type, users] of view.catalog.usersOf(item)) {
        const visible = related(users)
        if (visible.length)
            sections.push(
                renderSection(view, type, visible, {
                    title: usedByTitles[type],
                    icon: contentTypeInfos[type].type,
                }),
            )
    }
    return sections
}

const firstMatching = <T>(
    items: Iterable<T>,
    count: number,
    matches: (item: T) => boolean,
): T[] => {
    const found: T[] = []
    for (const item of items) {
        if (!matches(item)) continue
        found.push(item)
        if (found.length === count) break
    }
    return found
}
