import { execFile } from 'node:child_process'
import { open } from 'node:fs/promises'
import { promisify } from 'node:util'
import { mapLimit } from './map-limit.js'

const run = promisify(execFile)

/**
 * Puts files written without waiting for the disk (and their names in `folder`) on disk. One
 * `syncfs` of the folder's file system (coreutils' `sync -f`) costs one journal commit, where an
 * fsync per file costs one each: at thousands of files, seconds. Without `sync`, each is fsynced.
 */
export const makeDurable = async (folder: string, files: readonly string[]) => {
    if (!files.length) return
    try {
        await run('sync', ['-f', folder])
    } catch {
        await mapLimit([...files, folder], 16, fsync)
    }
}

const fsync = async (path: string) => {
    const handle = await open(path, 'r')
    try {
        await handle.sync()
    } finally {
        await handle.close()
    }
}
