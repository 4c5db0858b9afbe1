import type { GameplayResult } from '@sonolus/core'
import type { ItemRecord } from '../content/load.js'
import type { Problem } from '../content/problems.js'
import type { BoardDeclaration } from '../content/records.js'
import type { ServerSettings } from '../content/server-settings.js'
import type { LocalizedText } from '../content/text.js'
import { Board, type RankedPlay } from './board.js'
import type { ChartRevisions, Revision } from './chart-revisions.js'
import type { PlayResults } from './play-results.js'
import { implausibility } from './sanity.js'

/** A board as a level lists it: the current revision's by its declared name, older ones dated. */
export type BoardView = {
    name: string
    title: LocalizedText
    description?: LocalizedText
    declaration: BoardDeclaration
    revision: Revision
    board: Board
}

/** A player's best play on one board, and its rank there. */
export type PlayerRecord = { level: string; view: BoardView; play: RankedPlay; rank: number }

/** How a replay and a level change between two snapshots (either side may be absent). */
export type RecordChange = { before?: ItemRecord; after?: ItemRecord }

export type BoardInputs = {
    settings: ServerSettings
    /** The served level of a name in the snapshot being built. */
    level(name: string): ItemRecord | undefined
    /** Every served replay and level, for the first build and after the declarations change. */
    all(): { replays: Iterable<ItemRecord>; levels: Iterable<ItemRecord> }
    replays: readonly RecordChange[]
    levels: readonly RecordChange[]
}

/** A play placed on its boards, to be taken off them when its replay goes. */
type Placed = { replay: ItemRecord; level: string; hash: string; plays: Map<string, RankedPlay> }

/** The hash of the level data a level serves, when Shelf serves it (or the owner's Srl says it). */
export const levelDataHash = (level: ItemRecord) => {
    const data = level.resources.data
    if (!data) return undefined
    return 'served' in data ? data.served.hash : (data.external.hash ?? undefined)
}

/** Old revisions' boards are told apart by the start of their data's hash. */
const revisionSuffixLength = 8

/**
 * Every board of submitted plays, by level and chart revision, kept up to date play by play: a
 * snapshot hands it the replays and levels that changed, and each costs its own boards' work.
 * It outlives snapshots (like the resources map): a request reads the boards as they are now.
 */
export class BoardBook {
    /** level → data hash → declared board name → board. */
    private readonly boards = new Map<string, Map<string, Map<string, Board>>>()
    private readonly placed = new Map<ItemRecord, Placed>()
    private readonly playsOfLevel = new Map<string, Set<ItemRecord>>()
    private readonly playsOfPlayer = new Map<string, Set<Placed>>()
    private readonly unranked = new Map<ItemRecord, Problem>()
    private settingsKey: string | undefined
    private settings!: ServerSettings

    constructor(
        private readonly plays: PlayResults,
        private readonly revisions: ChartRevisions,
    ) {}

    update(inputs: BoardInputs) {
        this.settings = inputs.settings
        const key = JSON.stringify([inputs.settings.boards, [...inputs.settings.banned.keys()]])
        if (key !== this.settingsKey) {
            this.settingsKey = key
            this.rebuild(inputs)
        } else {
            this.apply(inputs)
        }
        this.revisions.flush()
    }

    /** A level's boards: the current revision's as declared, then earlier revisions' that hold records, newest first. */
    viewsOf(level: ItemRecord): BoardView[] {
        const current = this.revisions.current(level.name)
        if (!current) return []
        const declarations = this.declarationsOf(level)
        const views = declarations.map((declaration) => ({
            name: declaration.name,
            title: declaration.title,
            description: declaration.description,
            declaration,
            revision: current,
            board: this.boardOf(level.name, current.hash, declaration),
        }))
        const byHash = this.boards.get(level.name)
        const older = [...(byHash?.keys() ?? [])]
            .filter((hash) => hash !== current.hash)
            .map((hash) => this.revisions.revision(level.name, hash)!)
            .sort((a, b) => (b.until ?? 0) - (a.until ?? 0))
        for (const revision of older) {
            for (const declaration of declarations) {
                const board = byHash!.get(revision.hash)!.get(declaration.name)
                if (!board?.size) continue
                const until = new Date(revision.until ?? 0).toISOString().slice(0, 10)
                views.push({
                    name: `${declaration.name}.${revision.hash.slice(0, revisionSuffixLength)}`,
                    title: mapText(declaration.title, (text) => `${text} (until ${until})`),
                    description: declaration.description,
                    declaration,
                    revision,
                    board,
                })
            }
        }
        return views
    }

    /** A player's records: their best play on each board they played, with its rank. */
    recordsOf(player: string, level: (name: string) => ItemRecord | undefined): PlayerRecord[] {
        const records: PlayerRecord[] = []
        // A player plays a few levels many times: each level's boards are listed once.
        const viewsOfLevel = new Map<string, BoardView[]>()
        for (const placed of this.playsOfPlayer.get(player) ?? []) {
            let views = viewsOfLevel.get(placed.level)
            if (!views) {
                const levelRecord = level(placed.level)
                views = levelRecord ? this.viewsOf(levelRecord) : []
                viewsOfLevel.set(placed.level, views)
            }
            for (const view of views) {
                if (view.revision.hash !== placed.hash) continue
                const play = view.board.record(placed.replay.name)
                if (play)
                    records.push({ level: placed.level, view, play, rank: view.board.rankOf(play) })
            }
        }
        return records
    }

    /** Why each player's replay in the folder is not ranked. */
    problems(): Problem[] {
        return [...this.unranked.values()]
    }

    /** Why a play on this data of a level cannot rank; undefined when it can. */
    whyUnplayable(level: string, hash: string): string | undefined {
        if (!this.revisions.revision(level, hash))
            return `it was played on level data (${hash}) that levels/${level} never served`
        return undefined
    }

    /** A play's result read from its data as it was submitted. */
    remember(hash: string, result: GameplayResult) {
        this.plays.remember(hash, result)
    }

    private rebuild(inputs: BoardInputs) {
        this.boards.clear()
        this.placed.clear()
        this.playsOfLevel.clear()
        this.playsOfPlayer.clear()
        this.unranked.clear()
        const all = inputs.all()
        for (const level of all.levels) this.observe(level)
        for (const replay of all.replays) this.place(replay, inputs.level)
    }

    private apply(inputs: BoardInputs) {
        const replaced = new Set<string>()
        for (const { before, after } of inputs.levels) {
            if (after) this.observe(after)
            const declarationsChanged =
                before &&
                after &&
                JSON.stringify(before.fields.boards) !== JSON.stringify(after.fields.boards)
            if (declarationsChanged) replaced.add(after.name)
            if (before && !after) this.boards.delete(before.name)
        }
        for (const { before } of inputs.replays) if (before) this.unplace(before)
        for (const name of replaced) {
            const plays = [...(this.playsOfLevel.get(name) ?? [])]
            for (const replay of plays) this.unplace(replay)
            this.boards.delete(name)
            for (const replay of plays) this.place(replay, inputs.level)
        }
        for (const { after } of inputs.replays) if (after) this.place(after, inputs.level)
    }

    private observe(level: ItemRecord) {
        const hash = levelDataHash(level)
        if (hash) this.revisions.observe(level.name, hash)
    }

    private declarationsOf(level: ItemRecord) {
        return level.fields.boards ?? this.settings.boards
    }

    private boardOf(level: string, hash: string, declaration: BoardDeclaration) {
        const byHash = this.boards.get(level) ?? this.boards.set(level, new Map()).get(level)!
        const byName = byHash.get(hash) ?? byHash.set(hash, new Map()).get(hash)!
        return (
            byName.get(declaration.name) ??
            byName
                .set(declaration.name, new Board(declaration.order ?? 'desc'))
                .get(declaration.name)!
        )
    }

    /** Puts a player's replay on its boards, or notes why it is not ranked. */
    private place(replay: ItemRecord, levelOf: (name: string) => ItemRecord | undefined) {
        const player = replay.fields.authorId
        const levelName = replay.fields.references.level
        if (player === undefined || typeof levelName !== 'string') return
        const level = levelOf(levelName)
        if (!level) return
        const plays = this.playsOfLevel.get(levelName) ?? new Set()
        this.playsOfLevel.set(levelName, plays.add(replay))
        const reading = this.plays.of(replay)
        const hash = replay.fields.levelData
        const reason =
            hash === undefined
                ? 'it does not say which chart it was played on (no levelData)'
                : (banned(this.settings, player) ??
                  this.whyUnplayable(levelName, hash) ??
                  (!reading
                      ? "its data is not one Shelf serves (an external Srl): the result can't be read"
                      : 'problem' in reading
                        ? reading.problem
                        : implausibility(reading.result)))
        if (reason !== undefined) {
            this.unranked.set(replay, {
                file: replay.file,
                message: `not ranked: ${reason}`,
                severity: 'warning',
            })
            return
        }
        const { result } = reading as { result: GameplayResult }
        const placed: Placed = { replay, level: levelName, hash: hash!, plays: new Map() }
        for (const declaration of this.declarationsOf(level)) {
            const play = {
                replay: replay.name,
                player,
                value: result[declaration.by],
                time: replay.fields.time ?? 0,
            }
            this.boardOf(levelName, hash!, declaration).add(play)
            placed.plays.set(declaration.name, play)
        }
        this.placed.set(replay, placed)
        const ofPlayer = this.playsOfPlayer.get(player) ?? new Set()
        this.playsOfPlayer.set(player, ofPlayer.add(placed))
    }

    private unplace(replay: ItemRecord) {
        this.unranked.delete(replay)
        const levelName = replay.fields.references.level as string
        this.playsOfLevel.get(levelName)?.delete(replay)
        const placed = this.placed.get(replay)
        if (!placed) return
        this.placed.delete(replay)
        this.playsOfPlayer.get(replay.fields.authorId!)?.delete(placed)
        const byName = this.boards.get(placed.level)?.get(placed.hash)
        for (const [name, play] of placed.plays) byName?.get(name)?.remove(play)
    }
}

const banned = (settings: ServerSettings, player: string) => {
    const reason = settings.banned.get(player)
    return reason === undefined ? undefined : `the player is banned: ${reason}`
}

const mapText = (text: LocalizedText, map: (text: string) => string): LocalizedText =>
    typeof text === 'string'
        ? map(text)
        : Object.fromEntries(Object.entries(text).map(([locale, value]) => [locale, map(value)]))
