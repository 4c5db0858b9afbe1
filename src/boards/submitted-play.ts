import type { GameplayResult } from '@sonolus/core'
import { Refusal } from '../util/refusal.js'
import type { BoardBook } from './board-book.js'
import { readPlayResult } from './play-result.js'
import { implausibility } from './sanity.js'

/** A play as the result screen submits it: the level, the hash of its data played, the player. */
export type SubmittedPlay = { level: string; levelData: string; player: string }

/** Refuses, before any file is asked for, a play that could never rank here. */
export const checkSubmittedPlay = (boards: BoardBook, play: SubmittedPlay) => {
    const why = boards.whyUnplayable(play.level, play.levelData)
    if (why !== undefined) throw new Refusal('invalid', `the play cannot rank: ${why}`)
}

/**
 * The result of a submitted play from the replay data uploaded, refused when it is no
 * ReplayData or cannot be true; the boards are told it, so the reload that follows need not
 * unpack the data again.
 */
export const readSubmittedResult = async (
    boards: BoardBook,
    hash: string,
    bytes: Buffer,
): Promise<GameplayResult> => {
    const result = await readPlayResult(bytes)
    const why = implausibility(result)
    if (why !== undefined) throw new Refusal('invalid', `the play cannot be true: ${why}`)
    boards.remember(hash, result)
    return result
}
