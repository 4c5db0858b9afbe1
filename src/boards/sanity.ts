import type { GameplayResult } from '@sonolus/core'

const counts = ['combo', 'perfect', 'great', 'good', 'miss', 'totalCount'] as const
const scores = ['arcadeScore', 'accuracyScore'] as const

/** More notes than any chart has: a count past it was not played. */
const maxCount = 1_000_000
/** Scores are shown as integers of a few digits; past this a number was made up. */
const maxScore = 1e9

/**
 * Why a play's result cannot be true, or undefined when it can: counts are whole numbers that add
 * up to the notes, the combo is no longer than the chart, and scores are finite and not negative.
 * A client's result is not trusted; this only keeps what cannot be from ranking.
 */
export const implausibility = (result: GameplayResult): string | undefined => {
    for (const field of counts) {
        const value = result[field]
        if (!Number.isInteger(value) || value < 0 || value > maxCount)
            return `result.${field} is ${value}: a count is a whole number from 0 to ${maxCount}`
    }
    for (const field of scores) {
        const value = result[field]
        if (!Number.isFinite(value) || value < 0 || value > maxScore)
            return `result.${field} is ${value}: a score is a number from 0 to ${maxScore}`
    }
    const { perfect, great, good, miss, totalCount, combo } = result
    if (perfect + great + good + miss !== totalCount)
        return `the counts do not add up: perfect ${perfect} + great ${great} + good ${good} + miss ${miss} is not totalCount ${totalCount}`
    if (combo > totalCount) return `result.combo ${combo} is more than totalCount ${totalCount}`
    return undefined
}
