/**
 * What is done to one small resource file, on a worker thread (resource-worker.ts) or, for a few
 * files, on the main thread: the file is read, what Shelf serves is made of it, and hashed.
 */
import { hash } from 'node:crypto'
import { closeSync, fstatSync, openSync } from 'node:fs'
import { gzipSync } from 'node:zlib'
import { canonicalJson } from './canonical-json.js'
import { ContentError } from './problems.js'
import { readAll } from './read-text.js'

/** What Shelf serves of a file: its JSON minified and gzipped, its bytes gzipped, or the file itself. */
export type Making = 'json' | 'gzip' | 'none'

export type FileWork = {
    path: string
    making: Making
    /** A larger file is not read: only its `stat` is answered (its size was not known when asked for). */
    upTo?: number
}

/** The file's size and time, taken from the file opened for reading, as the hash cache keeps them. */
export type FileStat = { size: number; mtimeMs: number }

/**
 * The SHA-1 of the bytes served, and those bytes when Shelf made them, with the file's `stat`;
 * no hash when the file was larger than `upTo`, and not read.
 */
export type WorkDone = { stat: FileStat; hash?: string; made?: Buffer }

/**
 * Gzipped as hard as zlib can, as @sonolus/core's `compress` gzips JSON (so a minified file's
 * bytes gzip to what it would make of them): made once and sent many times.
 */
const strongest = { level: 9 }

/**
 * A long file (a chart of megabytes) is gzipped at zlib's default level instead: level 9 spends
 * three times its CPU there for 8–9% fewer bytes (the 10,000-level tree's five long charts, 29 MB:
 * 1.35 s against 0.44 s, 1.87 against 2.04 MB), and a first start makes every one of them. The
 * app asks only for valid gzip. A short file keeps level 9: its cost is mostly zlib's set-up
 * (the tree's small charts: 5% less CPU at level 6).
 */
const usual = { level: 6 }
export const longFileBytes = 256 * 1024

const gzipped = (bytes: Buffer) => gzipSync(bytes, bytes.length < longFileBytes ? strongest : usual)

/** One call rather than a Hash object: a pack tree's files are mostly a few hundred bytes. */
export const sha1 = (bytes: Buffer) => hash('sha1', bytes)

const parseJson = (bytes: Buffer): unknown => {
    try {
        return JSON.parse(bytes.toString('utf8')) as unknown
    } catch (error) {
        throw new ContentError(`invalid JSON: ${(error as Error).message}`)
    }
}

/** `compress(JSON.parse(file))` (but for a long file's level), without parsing a file that is minified already. */
const compressedJson = (bytes: Buffer) =>
    gzipped(canonicalJson(bytes) ?? Buffer.from(JSON.stringify(parseJson(bytes))))

/**
 * The file's stat is taken from the descriptor it is read by (a first start would otherwise
 * stat each of its tens of thousands of files by path once more on the main thread), before
 * reading, so that a change while it is read moves what the hash cache keeps with the bytes;
 * the bytes are read up to that size, in one call for a pack tree's files.
 */
export const workOn = ({ path, making, upTo }: FileWork): WorkDone => {
    const descriptor = openSync(path, 'r')
    try {
        const { size, mtimeMs } = fstatSync(descriptor)
        const stat = { size, mtimeMs }
        if (upTo !== undefined && size > upTo) return { stat }
        const bytes = readAll(descriptor, size)
        if (making === 'none') return { stat, hash: sha1(bytes) }
        const made = making === 'json' ? compressedJson(bytes) : gzipped(bytes)
        return { stat, hash: sha1(made), made }
    } finally {
        closeSync(descriptor)
    }
}
