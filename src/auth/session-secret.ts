import { randomBytes } from 'node:crypto'
import { mkdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { writeFileAtomic } from '../util/atomic-write.js'

/** The environment variable that can carry the secret, so it stays out of the process list. */
export const sessionSecretVariable = 'SHELF_SESSION_SECRET'

/** Shorter secrets could be guessed offline from one token. */
const minimumLength = 32

/** Where a generated secret is kept. */
export const sessionSecretFile = (stateFolder: string) => join(stateFolder, '.session-secret')

/**
 * The key of session and room tokens: the one given (flag or environment), or one generated on
 * the first start and kept in the state folder, so that sessions survive a restart.
 */
export const sessionSecret = async (
    given: string | undefined,
    stateFolder: string,
): Promise<Buffer> => {
    if (given !== undefined) {
        if (given.length < minimumLength)
            throw new Error(
                `the session secret must be at least ${minimumLength} characters long (got ${given.length})`,
            )
        return Buffer.from(given, 'utf8')
    }
    const file = sessionSecretFile(stateFolder)
    const kept = await readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') return undefined
        throw error
    })
    if (kept !== undefined && kept.trim().length >= minimumLength)
        return Buffer.from(kept.trim(), 'utf8')
    const generated = randomBytes(32).toString('hex')
    await mkdir(stateFolder, { recursive: true })
    await writeFileAtomic(file, `${generated}\n`, { mode: 0o600 })
    return Buffer.from(generated, 'utf8')
}
