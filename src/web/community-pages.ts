import type { CatalogItem } from '../catalog/catalog.js'
import type { LeaderboardEntryRecord, LeaderboardRecord } from '../content/load.js'
import { pageSizes, paginate } from '../answers/pagination.js'
import { commentView } from './comment-view.js'
import { itemCard, itemPath } from './item-cards.js'
import { canonicalLink, layoutData, pageLink, type PageRequest } from './page-frame.js'
import { pager } from './pager.js'
import { renderTemplate } from './templates.js'

/** The page number asked for, as `paginate` reads it. */
const pageNumberOf = (request: PageRequest) => Number(request.view.query.get('page') || 0)

/** Every comment of an item, newest first, paged like the app's. */
export const commentsPage = (request: PageRequest, item: CatalogItem) => {
    const card = itemCard(request, item)
    const path = `${itemPath(item.type, item.name)}/community/comments/list`
    const page = paginate(
        item.comments,
        pageSizes.comments,
        request.view.query,
        'page',
        (comment) => comment.name,
    )
    const pageNumber = pageNumberOf(request)
    const title = `${request.t.comments} · ${card.title}`
    return renderTemplate('comments', {
        ...layoutData(request, path, { page: pageNumber || undefined }),
        frame: {
            lang: request.page.locale,
            title,
            canonical: canonicalLink(request, path, { page: pageNumber || undefined }),
            ogType: 'website',
            noIndex: item.fields.unlisted || item.fields.draft,
        },
        title,
        card,
        comments: page.items.map((comment) => commentView(request, comment)),
        pager: pager(request, path, {}, page, pageNumber),
    })
}

/** A leaderboard's records, best first, paged like the app's, with the replays behind each. */
export const leaderboardPage = (
    request: PageRequest,
    item: CatalogItem,
    leaderboard: LeaderboardRecord,
) => {
    const { view } = request
    const card = itemCard(request, item)
    const path = `${itemPath(item.type, item.name)}/leaderboards/${encodeURIComponent(leaderboard.name)}`
    const page = paginate(
        leaderboard.records,
        pageSizes.records,
        view.query,
        'page',
        (record) => record.name,
    )
    const pageNumber = pageNumberOf(request)
    const title = `${view.renderer.text(leaderboard.title)} · ${card.title}`
    return renderTemplate('leaderboard', {
        ...layoutData(request, path, { page: pageNumber || undefined }),
        frame: {
            lang: request.page.locale,
            title,
            canonical: canonicalLink(request, path, { page: pageNumber || undefined }),
            ogType: 'website',
            noIndex: item.fields.unlisted || item.fields.draft,
        },
        title: view.renderer.text(leaderboard.title),
        description: view.renderer.optionalText(leaderboard.description),
        card,
        records: page.items.map((record) => recordView(request, record)),
        pager: pager(request, path, {}, page, pageNumber),
    })
}

/** A record of a leaderboard, with links to the replays behind it that this snapshot has. */
export const recordView = (request: PageRequest, record: LeaderboardEntryRecord) => ({
    rank: record.rank,
    player: record.player,
    value: record.value,
    replays: record.replays.flatMap((name) => {
        const replay = request.catalog.get('replay', name)
        return replay
            ? [
                  {
                      href: pageLink(request, itemPath('replay', name)),
                      title: request.view.renderer.text(replay.fields.title),
                  },
              ]
            : []
    }),
})
