import { insertionIndex, type Order } from '../util/sorted-list.js'

/** One ranked play: the replay it is, who played it, the value it ranks by and when it was played. */
export type RankedPlay = {
    replay: string
    player: string
    value: number
    time: number
}

/** Higher values first (`desc`) or lower (`asc`); of equal values the earlier play, then the replay's name. */
export const playOrder =
    (order: 'asc' | 'desc'): Order<RankedPlay> =>
    (a, b) =>
        (order === 'desc' ? b.value - a.value : a.value - b.value) ||
        a.time - b.time ||
        (a.replay < b.replay ? -1 : a.replay > b.replay ? 1 : 0)

/**
 * One board: each player's best play in rank order, kept sorted as plays come and go. A play
 * costs a bisection and a move of the records below it, never a sort; each player's other plays
 * wait behind their best, so removing the best (a reverted replay) brings the next one up.
 */
export class Board {
    /** Every player's best play, best first. */
    private readonly best: RankedPlay[] = []
    /** The records by the name of their replay. */
    private readonly records = new Map<string, RankedPlay>()
    /** Each player's plays, best first. */
    private readonly byPlayer = new Map<string, RankedPlay[]>()
    private readonly order: Order<RankedPlay>

    constructor(order: 'asc' | 'desc') {
        this.order = playOrder(order)
    }

    get size() {
        return this.best.length
    }

    add(play: RankedPlay) {
        const plays = this.byPlayer.get(play.player)
        if (!plays) {
            this.byPlayer.set(play.player, [play])
            this.insert(play)
            return
        }
        const previousBest = plays[0]!
        plays.splice(insertionIndex(plays, play, this.order), 0, play)
        if (plays[0] === play) {
            this.take(previousBest)
            this.insert(play)
        }
    }

    remove(play: RankedPlay) {
        const plays = this.byPlayer.get(play.player)
        const index = plays ? plays.indexOf(play) : -1
        if (!plays || index < 0) return
        plays.splice(index, 1)
        if (index > 0) return
        this.take(play)
        if (plays.length) this.insert(plays[0]!)
        else this.byPlayer.delete(play.player)
    }

    /** Records from a 0-based rank on, at most `count`. */
    slice(start: number, count: number): readonly RankedPlay[] {
        return this.best.slice(start, start + count)
    }

    /** The 1-based rank of a record. */
    rankOf(play: RankedPlay) {
        return insertionIndex(this.best, play, this.order) + 1
    }

    /** The record of a replay: the play, when it is its player's best. */
    record(replay: string): RankedPlay | undefined {
        return this.records.get(replay)
    }

    private insert(play: RankedPlay) {
        this.best.splice(insertionIndex(this.best, play, this.order), 0, play)
        this.records.set(play.replay, play)
    }

    private take(play: RankedPlay) {
        this.best.splice(insertionIndex(this.best, play, this.order), 1)
        this.records.delete(play.replay)
    }
}
