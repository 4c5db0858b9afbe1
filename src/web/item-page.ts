import { Text } from '@sonolus/core'
import type { CatalogItem } from '../catalog/catalog.js'
import type { AnyItem } from '../answers/render-item.js'
import { contentTypeInfos, contentTypes, type ContentType } from '../content/item-types.js'
import { detailSections, hasCommunity } from '../answers/item-details.js'
import { leaderboardsOf } from '../answers/leaderboards.js'
import { recordView } from './community-pages.js'
import { commentView } from './comment-view.js'
import { itemCard, itemPath } from './item-cards.js'
import { renderMarkdown, summary } from './markdown.js'
import {
    absoluteLink,
    canonicalLink,
    timeView,
    layoutData,
    pageLink,
    resourceLink,
    type PageRequest,
} from './page-frame.js'
import { shareBlock } from './share-block.js'
import { renderTemplate } from './templates.js'
import { format, readableText, typeName, typeTitle } from './ui-text.js'

/** How many comments and records an item's page shows before its "all" link. */
const topCount = 3

/**
 * One item's page: what the app's details page shows (picture, texts, tags, description,
 * comments, leaderboards, sections), the items it uses as links, and what a browser can play.
 * A post is an article; a playlist lists its levels; a replay leads to its level.
 */
export const itemPage = async (request: PageRequest, item: CatalogItem, writable: boolean) => {
    const { catalog, view, t } = request
    const rendered = view.renderer.item(item as CatalogItem & { type: ContentType }) as AnyItem
    const path = itemPath(item.type, item.name)
    const card = itemCard(request, item)
    const description = view.renderer.optionalText(item.fields.description) ?? ''
    const image = card.image
    const leaderboards = leaderboardsOf(catalog, item).map((leaderboard) => {
        const records = leaderboard.records(view)
        return {
            title: view.renderer.text(leaderboard.title),
            description: view.renderer.optionalText(leaderboard.description),
            href: pageLink(request, `${path}/leaderboards/${encodeURIComponent(leaderboard.name)}`),
            records: records
                .slice(0, topCount)
                .map((record) => recordView(request, leaderboard, record)),
            more: records.length > topCount,
        }
    })
    return renderTemplate(item.type === 'post' ? 'post' : 'item', {
        ...layoutData(request, path, {}),
        frame: {
            lang: request.page.locale,
            title: card.title,
            description: summary(
                description || [card.subtitle, card.author].filter(Boolean).join(' · '),
            ),
            canonical: canonicalLink(request, path),
            image: absoluteLink(request, image),
            ogType: item.type === 'post' ? 'article' : 'website',
            noIndex: item.fields.unlisted || item.fields.draft,
        },
        card,
        typeTitle:
            view.renderer.optionalText(catalog.settings.types[item.type].title) ??
            typeTitle(item.type, request.page.locale),
        typeHref: pageLink(request, `/${contentTypeInfos[item.type].plural}/list`),
        image,
        notices: [
            item.fields.unlisted ? t.unlisted : undefined,
            item.fields.draft ? t.draft : undefined,
        ].filter(Boolean),
        time: item.fields.time === undefined ? undefined : timeView(request, item.fields.time),
        enginePackage:
            item.enginePackage &&
            format(t.enginePackage, item.enginePackage.name, item.enginePackage.version),
        description: description ? renderMarkdown(description) : '',
        audio: audioOf(request, rendered),
        effectSounds: item.type === 'effect',
        references: referencesOf(request, item),
        comments: hasCommunity(catalog, item, writable)
            ? {
                  top: item.comments
                      .slice(0, topCount)
                      .map((comment) => commentView(request, comment)),
                  all:
                      item.comments.length > topCount
                          ? {
                                href: pageLink(request, `${path}/community/comments/list`),
                                text: format(t.allComments, item.comments.length),
                            }
                          : undefined,
              }
            : undefined,
        leaderboards,
        sections: detailSections(view, item).map((section) => ({
            title: sectionTitle(request, section.title),
            items: section.items.map((sectionItem) =>
                itemCard(request, catalog.get(section.itemType as ContentType, sectionItem.name)!),
            ),
        })),
        share: await shareBlock(request, path),
    })
}

/** A level's music and preview: the browser plays them from the same hash-named resources as the app. */
const audioOf = (request: PageRequest, rendered: AnyItem) => {
    if (!('bgm' in rendered)) return []
    return [
        { label: request.t.preview, src: resourceLink(request, rendered.preview) },
        { label: request.t.music, src: resourceLink(request, rendered.bgm) },
    ].filter((audio): audio is { label: string; src: string } => audio.src !== undefined)
}

/** The items this one names (a level's engine and skin…, a replay's level, a playlist's levels), as links. */
const referencesOf = (request: PageRequest, item: CatalogItem) =>
    contentTypeInfos[item.type].references.map(({ field, target, shape }) => {
        const targets =
            shape === 'many'
                ? request.catalog.references(item, field)
                : [request.catalog.reference(item, field)]
        return {
            title:
                shape === 'many'
                    ? typeTitle(target, request.page.locale)
                    : typeName(target, request.page.locale),
            many: shape === 'many',
            items: targets.map((referenced) =>
                referenced ? itemCard(request, referenced) : undefined,
            ),
        }
    })

/** A section's title: the app's type keys (`#LEVEL`, for "levels using this") read as the type's name. */
export const sectionTitle = (request: PageRequest, title: string) => {
    if (title === Text.SameAuthor) return request.t.sameAuthor
    const type = contentTypes.find((candidate) => `#${candidate.toUpperCase()}` === title)
    return type ? typeTitle(type, request.page.locale) : readableText(title)
}
