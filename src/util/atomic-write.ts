import { randomBytes } from 'node:crypto'
import { rename, rm, writeFile } from 'node:fs/promises'

/**
 * Writes a file so that readers see the old bytes or the new ones, never half: the bytes go to
 * a temporary file in the same folder (so the rename cannot cross file systems), then replace it.
 */
export const writeFileAtomic = async (path: string, bytes: Buffer | string, options: { mode?: number } = {}) => {
    const temporary = `${path}.${randomBytes(6).toString('hex')}.tmp`
    try {
        await writeFile(temporary, bytes, { flush: true, mode: options.mode })
        await rename(temporary, path)
    } catch (error) {
        await rm(temporary, { force: true })
        throw error
    }
}
