import { isUtf8 } from 'node:buffer'
import { closeSync, fstatSync, openSync, readSync } from 'node:fs'
import { ContentError } from './problems.js'

/**
 * The most bytes a record file (an item, a comment, the settings) may hold, and a leaderboard,
 * which lists all its records in one file (20,000 records take about a MiB). A long post is tens
 * of KiB. Past these a file is refused with a problem before it is read: YAML of many small
 * values parses at about a MiB a second, so no file holds the loader for much longer than a
 * second (bench/hostile-content.ts measures it).
 */
export const maxRecordBytes = 512 * 1024
export const maxLeaderboardBytes = 1024 * 1024

const sizeOf = (bytes: number) =>
    bytes < 1024 * 1024
        ? `${Math.round(bytes / 1024)} KiB`
        : `${(bytes / 1024 / 1024).toFixed(1)} MiB`

/**
 * A text file as strict UTF-8: at most `maxBytes`, and bytes that are not UTF-8 are a problem
 * naming their line, never silently replaced.
 */
export const readTextFile = (path: string, maxBytes: number): string => {
    const descriptor = openSync(path, 'r')
    let bytes: Buffer
    try {
        const { size } = fstatSync(descriptor)
        if (size > maxBytes)
            throw new ContentError(
                `the file is ${sizeOf(size)}; a file of this kind may hold at most ${sizeOf(maxBytes)}: split it or shorten it`,
            )
        bytes = readAll(descriptor, size)
    } finally {
        closeSync(descriptor)
    }
    if (!isUtf8(bytes))
        throw new ContentError('the file is not valid UTF-8: save it as UTF-8', {
            line: firstInvalidLine(bytes),
        })
    return bytes.toString('utf8')
}

/** The `size` bytes of an open file just stat'ed (readFileSync would stat it again: at a hundred thousand records, a tenth of a second). */
export const readAll = (descriptor: number, size: number) => {
    const bytes = Buffer.allocUnsafe(size)
    let length = 0
    while (length < size) {
        const read = readSync(descriptor, bytes, length, size - length, null)
        if (read === 0) break
        length += read
    }
    return bytes.subarray(0, length)
}

/** The line of the first bytes that are not UTF-8 (a line ends at a newline byte, which no multi-byte sequence holds). */
const firstInvalidLine = (bytes: Buffer) => {
    let start = 0
    for (let line = 1; ; line++) {
        const end = bytes.indexOf(0x0a, start)
        if (!isUtf8(bytes.subarray(start, end === -1 ? bytes.length : end))) return line
        if (end === -1) return undefined
        start = end + 1
    }
}
