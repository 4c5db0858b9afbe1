import { randomBytes } from 'node:crypto'
import { rename, rm, writeFile } from 'node:fs/promises'

/** The name of the temporary file of a write that never finished (the process was killed). */
export const isAtomicTemporary = (name: string) => /\.[0-9a-f]{12}\.tmp$/.test(name)

/**
 * Temporary names: this process's random half, then a count. Random bytes for each name cost more
 * than the write of a small file, and the names need only differ between concurrent writers.
 */
const processPart = randomBytes(3).toString('hex')
let written = 0
const temporaryName = (path: string) =>
    `${path}.${processPart}${(written++ % 0x1000000).toString(16).padStart(6, '0')}.tmp`

/**
 * Writes a file so that readers see the old bytes or the new ones, never half: the bytes go to
 * a temporary file in the same folder (so the rename cannot cross file systems), then replace it.
 * `flush: false` skips waiting for the disk, for a writer that can simply run again (an export).
 */
export const writeFileAtomic = async (
    path: string,
    /** Pieces of text are written as they come, each awaited: a large file is never one string. */
    bytes: Buffer | string | AsyncIterable<string | Uint8Array>,
    options: { mode?: number; flush?: boolean } = {},
) => {
    const temporary = temporaryName(path)
    try {
        await writeFile(temporary, bytes, { flush: options.flush ?? true, mode: options.mode })
        await rename(temporary, path)
    } catch (error) {
        await rm(temporary, { force: true })
        throw error
    }
}
