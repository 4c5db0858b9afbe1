import { notFound } from '../http-error.js'
import type Router from '@koa/router'
import type {
    ServerItemLeaderboardDetails,
    ServerItemLeaderboardRecord,
    ServerItemLeaderboardRecordDetails,
    ServerItemLeaderboardRecordList,
} from '@sonolus/core'
import type { CatalogItem } from '../../catalog/catalog.js'
import type { LeaderboardEntryRecord } from '../../content/load.js'
import { pageSizes, paginate } from '../../answers/pagination.js'
import type { ShelfContext } from '../request-state.js'
import { itemParam, respond } from '../respond.js'

/** E21, E22 and E23: an item's leaderboards, their records and the replays behind a record. */
export const leaderboardRoutes = (router: Router) => {
    const base = '/:type/:itemName/leaderboards/:leaderboardName'

    router.get(base, (ctx) => {
        const leaderboard = leaderboardParam(ctx as ShelfContext)
        respond<ServerItemLeaderboardDetails>(ctx, {
            topRecords: leaderboard.records.slice(0, pageSizes.records).map(renderRecord),
        })
    })

    router.get(`${base}/records/list`, (ctx) => {
        const leaderboard = leaderboardParam(ctx as ShelfContext)
        const page = paginate(
            leaderboard.records,
            pageSizes.records,
            (ctx as ShelfContext).state.shelf.query,
            'page',
            (record) => record.name,
        )
        respond<ServerItemLeaderboardRecordList>(ctx, {
            pageCount: page.pageCount,
            records: page.items.map(renderRecord),
        })
    })

    router.get(`${base}/records/:recordName`, (ctx) => {
        const state = (ctx as ShelfContext).state.shelf
        const leaderboard = leaderboardParam(ctx as ShelfContext)
        const name = String(ctx.params.recordName)
        const record =
            leaderboard.records.find((entry) => entry.name === name) ??
            notFound(`record "${name}" not found in leaderboard "${leaderboard.name}"`)
        const replays = record.replays
            .map((replay) => state.catalog.get('replay', replay))
            .filter((replay): replay is CatalogItem & { type: 'replay' } => replay !== undefined)
        respond<ServerItemLeaderboardRecordDetails>(ctx, {
            replays: replays.map((replay) => state.renderer.item(replay)),
        })
    })
}

const leaderboardParam = (ctx: ShelfContext) => {
    const item = itemParam(ctx)
    const name = String(ctx.params.leaderboardName)
    return (
        ctx.state.shelf.catalog.leaderboardsOf(item).find((entry) => entry.name === name) ??
        notFound(`leaderboard "${name}" not found on ${item.type} "${item.name}"`)
    )
}

const renderRecord = (record: LeaderboardEntryRecord): ServerItemLeaderboardRecord => ({
    name: record.name,
    rank: record.rank,
    player: record.player,
    value: record.value,
})
