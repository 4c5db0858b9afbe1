import type {
    ServerItemLeaderboardDetails,
    ServerItemLeaderboardRecord,
    ServerItemLeaderboardRecordDetails,
    ServerItemLeaderboardRecordList,
} from '@sonolus/core'
import type { CatalogItem } from '../catalog/catalog.js'
import type { LeaderboardEntryRecord, LeaderboardRecord } from '../content/load.js'
import { pageSizes, paginate } from './pagination.js'
import type { RequestView } from './request-view.js'

/** E21: a leaderboard's top records. */
export const leaderboardDetails = (
    leaderboard: LeaderboardRecord,
): ServerItemLeaderboardDetails => ({
    topRecords: leaderboard.records.slice(0, pageSizes.records).map(renderRecord),
})

/** E22: a page of a leaderboard's records. */
export const recordList = (
    view: RequestView,
    leaderboard: LeaderboardRecord,
): ServerItemLeaderboardRecordList => {
    const page = paginate(
        leaderboard.records,
        pageSizes.records,
        view.query,
        'page',
        (record) => record.name,
    )
    return { pageCount: page.pageCount, records: page.items.map(renderRecord) }
}

/** E23: the replays behind a record, those still on the server. */
export const recordDetails = (
    view: RequestView,
    record: LeaderboardEntryRecord,
): ServerItemLeaderboardRecordDetails => ({
    replays: record.replays
        .map((replay) => view.catalog.get('replay', replay))
        .filter((replay): replay is CatalogItem & { type: 'replay' } => replay !== undefined)
        .map((replay) => view.renderer.item(replay)),
})

const renderRecord = (record: LeaderboardEntryRecord): ServerItemLeaderboardRecord => ({
    name: record.name,
    rank: record.rank,
    player: record.player,
    value: record.value,
})
