import { isAscii } from 'node:buffer'
import { closeSync, openSync, readSync } from 'node:fs'

/**
 * Bytes read at a time, unless told otherwise. Under a megabyte: Node makes a string of more
 * (0xfbee9 bytes) outside V8's heap, and every 64 MB of those made V8 mark the whole heap once,
 * at 100,000 levels a full collection of 200 MB in the middle of a warm start.
 */
const pieceBytes = 512 * 1024

/**
 * A file of one JSON value per line, read a piece of whole lines at a time: a snapshot of a
 * hundred thousand items (tens of megabytes) is never one string, nor one buffer, so reading it
 * adds a megabyte to the peak rather than twice its size. Throws when the file cannot be read.
 */
export function* linePieces(file: string, bytes = pieceBytes): Generator<string> {
    const descriptor = openSync(file, 'r')
    try {
        let buffer = Buffer.allocUnsafe(bytes)
        let filled = 0
        for (;;) {
            if (filled === buffer.length) {
                // One line longer than a piece.
                const larger = Buffer.allocUnsafe(buffer.length * 2)
                buffer.copy(larger, 0, 0, filled)
                buffer = larger
            }
            const read = readSync(descriptor, buffer, filled, buffer.length - filled, null)
            filled += read
            const end = read === 0 ? filled : buffer.lastIndexOf(0x0a, filled - 1) + 1
            if (end > 0) {
                // Read as Latin-1 when it is ASCII: the quick copy, into a string of one byte a character.
                yield buffer.toString(isAscii(buffer.subarray(0, end)) ? 'latin1' : 'utf8', 0, end)
                buffer.copy(buffer, 0, end, filled)
                filled -= end
            }
            if (read === 0) return
        }
    } finally {
        closeSync(descriptor)
    }
}

/**
 * One value as a line of JSON in ASCII, every other character escaped: such a file is read a
 * good deal quicker (see `linePieces`), and a name in Japanese costs a few bytes more.
 */
export const asciiJsonLine = (value: unknown) =>
    `${JSON.stringify(value).replace(
        /[\u007f-\uffff]/g,
        (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`,
    )}\n`

/** The values of a piece of lines; throws when a line is not JSON. */
export const parseLines = (piece: string): unknown[] =>
    JSON.parse(`[${piece.trimEnd().replaceAll('\n', ',')}]`) as unknown[]

/** Every value of a file of JSON lines, a piece at a time. */
export function* jsonLines(file: string): Generator<unknown> {
    for (const piece of linePieces(file)) yield* parseLines(piece)
}
