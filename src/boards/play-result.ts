import type { GameplayResult } from '@sonolus/core'
import { promisify } from 'node:util'
import { gunzip } from 'node:zlib'
import { Refusal } from '../util/refusal.js'

const gunzipAsync = promisify(gunzip)

/**
 * The most a replay's data may unpack to. A long chart played to its end records a few megabytes
 * of inputs and touches; the bound is what keeps a small gzip bomb (a megabyte that unpacks to a
 * gigabyte) from costing more than this much memory and the time to inflate it.
 */
export const maxReplayDataBytes = 16 * 1024 * 1024

const grades = ['allPerfect', 'fullCombo', 'pass', 'fail']
const resultNumbers = [
    'arcadeScore',
    'accuracyScore',
    'combo',
    'perfect',
    'great',
    'good',
    'miss',
    'totalCount',
] as const

/** The fields of a ReplayData (§4) a result is read with, and what each must hold. */
const shape: [string, 'number' | 'object' | 'array'][] = [
    ['startTime', 'number'],
    ['saveTime', 'number'],
    ['duration', 'number'],
    ['inputOffset', 'number'],
    ['playArea', 'object'],
    ['result', 'object'],
    ['inputs', 'object'],
    ['entities', 'array'],
    ['touches', 'object'],
]

const kindOf = (value: unknown) =>
    Array.isArray(value) ? 'array' : value === null ? 'null' : typeof value

const invalid = (message: string) => new Refusal('invalid', `the replay's data ${message}`)

/**
 * The result of a play from the replay data the app recorded (gzip-compressed JSON): unpacked
 * within `maxReplayDataBytes`, then checked to be a ReplayData, a refusal naming the field at fault.
 */
export const readPlayResult = async (gzipped: Buffer): Promise<GameplayResult> => {
    let json: Buffer
    try {
        json = await gunzipAsync(gzipped, { maxOutputLength: maxReplayDataBytes })
    } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE')
            throw new Refusal(
                'invalid',
                `the replay's data unpacks to more than ${maxReplayDataBytes} bytes`,
            )
        throw invalid('is not gzip-compressed')
    }
    let data: unknown
    try {
        data = JSON.parse(json.toString('utf8'))
    } catch {
        throw invalid('is not JSON')
    }
    return resultOfReplayData(data)
}

/** The `result` of parsed replay data, once it is known to be a ReplayData. */
export const resultOfReplayData = (data: unknown): GameplayResult => {
    if (kindOf(data) !== 'object') throw invalid(`must be a JSON object, not ${kindOf(data)}`)
    const record = data as Record<string, unknown>
    for (const [field, kind] of shape) {
        if (kindOf(record[field]) !== kind)
            throw invalid(`field "${field}" must be ${kind === 'array' ? 'an array' : `a ${kind}`}`)
    }
    const result = record.result as Record<string, unknown>
    if (!grades.includes(result.grade as string))
        throw invalid(`field "result.grade" must be one of ${grades.join(', ')}`)
    for (const field of resultNumbers) {
        if (typeof result[field] !== 'number')
            throw invalid(`field "result.${field}" must be a number`)
    }
    return result as GameplayResult
}
