import type {
    ServerItemLeaderboard,
    ServerItemLeaderboardDetails,
    ServerItemLeaderboardRecord,
    ServerItemLeaderboardRecordDetails,
    ServerItemLeaderboardRecordList,
} from '@sonolus/core'
import type { BoardView } from '../boards/board-book.js'
import type { RankedPlay } from '../boards/board.js'
import type { Catalog, CatalogItem } from '../catalog/catalog.js'
import type { LeaderboardRecord } from '../content/load.js'
import type { LocalizedText } from '../content/text.js'
import type { RequestView } from './request-view.js'
import { pageSizes, paginate } from './pagination.js'
import type { Person } from '../people/people.js'
import { playerPersonName } from '../people/person-names.js'
import type { Sequence } from '../util/sequence.js'

/**
 * A leaderboard of an item, whichever kind: one the owner wrote in `leaderboards/`, or a board
 * of submitted plays. Its records are rendered a page at a time.
 */
export type ItemLeaderboard = {
    name: string
    title: LocalizedText
    description?: LocalizedText
    records(view: RequestView): Sequence<ServerItemLeaderboardRecord>
    /** The replays of a record, undefined when there is no record of that name. */
    replaysOf(record: string): string[] | undefined
}

/**
 * Each snapshot's lists of leaderboards, made on first ask: boards and their revisions change
 * only as a new snapshot is made, and every request for a board or a record looks it up by name.
 */
const leaderboardsPerSnapshot = new WeakMap<Catalog, WeakMap<CatalogItem, ItemLeaderboard[]>>()

/** An item's leaderboards: the written ones, then (levels) its boards of submitted plays. */
export const leaderboardsOf = (catalog: Catalog, item: CatalogItem): readonly ItemLeaderboard[] => {
    let ofSnapshot = leaderboardsPerSnapshot.get(catalog)
    if (!ofSnapshot) leaderboardsPerSnapshot.set(catalog, (ofSnapshot = new WeakMap()))
    let leaderboards = ofSnapshot.get(item)
    if (!leaderboards) {
        leaderboards = [
            ...catalog.leaderboardsOf(item).map(writtenLeaderboard),
            ...(item.type === 'level' ? catalog.boards.viewsOf(item).map(playedLeaderboard) : []),
        ]
        ofSnapshot.set(item, leaderboards)
    }
    return leaderboards
}

export const leaderboardEntry = (
    view: RequestView,
    leaderboard: ItemLeaderboard,
): ServerItemLeaderboard => ({
    name: leaderboard.name,
    title: view.renderer.text(leaderboard.title),
    description: view.renderer.optionalText(leaderboard.description),
})

/** E21: a leaderboard's top records. */
export const leaderboardDetails = (
    view: RequestView,
    leaderboard: ItemLeaderboard,
): ServerItemLeaderboardDetails => ({
    topRecords: leaderboard.records(view).slice(0, pageSizes.records),
})

/** E22: a page of a leaderboard's records. */
export const recordList = (
    view: RequestView,
    leaderboard: ItemLeaderboard,
): ServerItemLeaderboardRecordList => {
    const page = paginate(
        leaderboard.records(view),
        pageSizes.records,
        view.query,
        'page',
        (record) => record.name,
    )
    return { pageCount: page.pageCount, records: page.items }
}

/** E23: the replays behind a record, those still on the server; undefined for no such record. */
export const recordDetails = (
    view: RequestView,
    leaderboard: ItemLeaderboard,
    record: string,
): ServerItemLeaderboardRecordDetails | undefined => {
    const replays = leaderboard.replaysOf(record)
    if (!replays) return undefined
    return {
        replays: replays
            .map((replay) => view.catalog.get('replay', replay))
            .filter((replay): replay is CatalogItem & { type: 'replay' } => replay !== undefined)
            .map((replay) => view.renderer.item(replay)),
    }
}

const writtenLeaderboard = (leaderboard: LeaderboardRecord): ItemLeaderboard => ({
    name: leaderboard.name,
    title: leaderboard.title,
    description: leaderboard.description,
    records: () =>
        leaderboard.records.map((record) => ({
            name: record.name,
            rank: record.rank,
            player: record.player,
            value: record.value,
        })),
    replaysOf: (name) => leaderboard.records.find((record) => record.name === name)?.replays,
})

/** A board's records, rendered as a page asks for them: a board may hold thousands. */
const playedLeaderboard = (board: BoardView): ItemLeaderboard => ({
    name: board.name,
    title: board.title,
    description: board.description,
    records: (view) => new RenderedRecords(view, board),
    replaysOf: (name) => (board.board.record(name) ? [name] : undefined),
})

class RenderedRecords implements Sequence<ServerItemLeaderboardRecord> {
    constructor(
        private readonly view: RequestView,
        private readonly board: BoardView,
    ) {}

    get length() {
        return this.board.board.size
    }

    slice(start = 0, end = this.length) {
        return this.board.board
            .slice(start, end - start)
            .map((play, index) => renderPlay(this.view, this.board, play, start + index + 1))
    }

    findIndex(
        predicate: (
            record: ServerItemLeaderboardRecord,
            index: number,
            records: readonly ServerItemLeaderboardRecord[],
        ) => unknown,
    ) {
        return this.slice().findIndex(predicate)
    }
}

const renderPlay = (
    view: RequestView,
    board: BoardView,
    play: RankedPlay,
    rank: number,
): ServerItemLeaderboardRecord => {
    const person = view.catalog.people.get(playerPersonName(play.player))
    const user = person && view.renderer.user(person)
    return {
        name: play.replay,
        rank: String(rank),
        player: user?.title ?? play.player,
        playerUser: user,
        value: formatValue(play.value, board.declaration.by),
    }
}

/** Counts and scores as the app shows them: `1,000,000`; accuracy with its decimals. */
const formats = {
    whole: new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 }),
    accuracy: new Intl.NumberFormat('en-US', { maximumFractionDigits: 4 }),
}
const formatValue = (value: number, by: string) =>
    formats[by === 'accuracyScore' ? 'accuracy' : 'whole'].format(value)

/** A person's best play on a board: its replay, rank and the board's title. */
export type PersonRecord = {
    replay: CatalogItem & { type: 'replay' }
    rank: number
    board: LocalizedText
}

/** A person's best play on each board they played on, best rank first. */
export const recordsOfPerson = (view: RequestView, person: Person): PersonRecord[] => {
    if (person.playerId === undefined) return []
    const catalog = view.catalog
    return catalog.boards
        .recordsOf(person.playerId, (name) => catalog.get('level', name))
        .map((record) => ({
            replay: catalog.get('replay', record.play.replay) as CatalogItem & { type: 'replay' },
            rank: record.rank,
            board: record.view.title,
        }))
        .filter((record) => record.replay !== undefined)
        .sort((a, b) => a.rank - b.rank || (a.replay.name < b.replay.name ? -1 : 1))
}
