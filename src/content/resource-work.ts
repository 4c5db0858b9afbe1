/**
 * What is done to one small resource file, on a worker thread (resource-worker.ts) or, for a few
 * files, on the main thread: the file is read, what Shelf serves is made of it, and hashed.
 */
import { compressSync } from '@sonolus/core'
import { hash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { gzipSync } from 'node:zlib'
import { canonicalJson } from './canonical-json.js'
import { ContentError } from './problems.js'

/** What Shelf serves of a file: its JSON minified and gzipped, its bytes gzipped, or the file itself. */
export type Making = 'json' | 'gzip' | 'none'

export type FileWork = { path: string; making: Making }

/** The SHA-1 of the bytes served, and those bytes when Shelf made them. */
export type WorkDone = { hash: string; made?: Buffer }

/**
 * Gzipped as hard as zlib can, as @sonolus/core's `compress` gzips JSON (so a minified file's
 * bytes gzip to what it would make of them): made once and sent many times.
 */
const gzipOptions = { level: 9 }

/** One call rather than a Hash object: a pack tree's files are mostly a few hundred bytes. */
export const sha1 = (bytes: Buffer) => hash('sha1', bytes)

const parseJson = (bytes: Buffer): unknown => {
    try {
        return JSON.parse(bytes.toString('utf8')) as unknown
    } catch (error) {
        throw new ContentError(`invalid JSON: ${(error as Error).message}`)
    }
}

/** `compress(JSON.parse(file))`, without parsing a file that is minified already. */
const compressedJson = (bytes: Buffer) => {
    const minified = canonicalJson(bytes)
    return minified ? gzipSync(minified, gzipOptions) : compressSync(parseJson(bytes))
}

export const workOn = ({ path, making }: FileWork): WorkDone => {
    const bytes = readFileSync(path)
    if (making === 'none') return { hash: sha1(bytes) }
    const made = making === 'json' ? compressedJson(bytes) : gzipSync(bytes, gzipOptions)
    return { hash: sha1(made), made }
}
