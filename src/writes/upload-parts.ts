import { readFile } from 'node:fs/promises'
import { Refusal } from '../util/refusal.js'
import type { UploadedFiles } from './upload-keys.js'

/** A file of an upload as it arrived: its form field, its SHA-1, its size, and the file holding its bytes. */
export type UploadedPart = { field: string; hash: string; size: number; path: string }

/**
 * The files of an upload, by their SHA-1 (§2.3). Every part must be in the field "files", be one
 * of the expected hashes and be no larger than its option takes, and every expected hash must
 * arrive; names and order are not trusted.
 */
export const acceptUploadedParts = async (
    parts: readonly UploadedPart[],
    expected: readonly string[],
    maxBytesOf: (hash: string) => number,
): Promise<UploadedFiles> => {
    const others = [...new Set(parts.map(({ field }) => field))].filter(
        (field) => field !== 'files',
    )
    if (others.length)
        throw new Refusal(
            'invalid',
            `files go in the field "files", not ${others.map((field) => `"${field}"`).join(', ')}`,
        )
    const received = new Map<string, Buffer>()
    for (const part of parts) {
        if (!expected.includes(part.hash))
            throw new Refusal(
                'invalid',
                `a file with SHA-1 ${part.hash} was not asked for (expected ${expected.join(', ')})`,
            )
        const maxBytes = maxBytesOf(part.hash)
        if (part.size > maxBytes)
            throw new Refusal(
                'too-large',
                `the file ${part.hash} is ${part.size} bytes; its option takes at most ${maxBytes}`,
            )
        received.set(part.hash, await readFile(part.path))
    }
    const missing = expected.filter((hash) => !received.has(hash))
    if (missing.length)
        throw new Refusal('invalid', `files missing from the upload: ${missing.join(', ')}`)
    return received
}
