import { notFound } from '../http-error.js'
import type Router from '@koa/router'
import type {
    ServerItemLeaderboardDetails,
    ServerItemLeaderboardRecordDetails,
    ServerItemLeaderboardRecordList,
} from '@sonolus/core'
import {
    leaderboardDetails,
    leaderboardsOf,
    recordDetails,
    recordList,
} from '../../answers/boards.js'
import type { ShelfContext } from '../request-state.js'
import { itemParam, respond } from '../respond.js'

/** E21, E22 and E23: an item's leaderboards, their records and the replays behind a record. */
export const leaderboardRoutes = (router: Router) => {
    const base = '/:type/:itemName/leaderboards/:leaderboardName'

    router.get(base, (ctx) => {
        const leaderboard = leaderboardParam(ctx as ShelfContext)
        respond<ServerItemLeaderboardDetails>(
            ctx,
            leaderboardDetails((ctx as ShelfContext).state.shelf, leaderboard),
        )
    })

    router.get(`${base}/records/list`, (ctx) => {
        const leaderboard = leaderboardParam(ctx as ShelfContext)
        respond<ServerItemLeaderboardRecordList>(
            ctx,
            recordList((ctx as ShelfContext).state.shelf, leaderboard),
        )
    })

    router.get(`${base}/records/:recordName`, (ctx) => {
        const leaderboard = leaderboardParam(ctx as ShelfContext)
        const name = String(ctx.params.recordName)
        respond<ServerItemLeaderboardRecordDetails>(
            ctx,
            recordDetails((ctx as ShelfContext).state.shelf, leaderboard, name) ??
                notFound(`record "${name}" not found in leaderboard "${leaderboard.name}"`),
        )
    })
}

const leaderboardParam = (ctx: ShelfContext) => {
    const item = itemParam(ctx)
    const name = String(ctx.params.leaderboardName)
    return (
        leaderboardsOf(ctx.state.shelf.catalog, item).find((entry) => entry.name === name) ??
        notFound(`leaderboard "${name}" not found on ${item.type} "${item.name}"`)
    )
}
