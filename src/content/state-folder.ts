import { mkdir, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { writeFileAtomic } from '../util/atomic-write.js'

/**
 * Makes Shelf's state folder (processed resources, hashes, the session secret) and keeps it out
 * of git: a `.gitignore` of `*` inside it means one `git add -A` in the content repository can
 * never publish the session secret, whatever the repository's own `.gitignore` says. Written
 * whenever it is missing, so a folder made by an older Shelf gets one too.
 */
export const prepareStateFolder = async (folder: string) => {
    await mkdir(folder, { recursive: true })
    const ignore = join(folder, '.gitignore')
    if (!(await stat(ignore).catch(() => undefined)))
        await writeFileAtomic(
            ignore,
            '# Shelf state: processed files and secrets, never committed\n*\n',
        )
}
