/**
 * Reads every file of a tree once, so that a cold start is measured on a tree in the page cache,
 * as issue 22's target states it. A tree the system dropped from memory since it was last read
 * (after benchmarks at 100,000 levels, or copies of big trees) costs a cold start at 10,000 levels
 * twice its clock and 4–5 s more CPU: every file is then one read from the disk (55,000), each
 * about 50 µs of CPU in this virtual machine, whatever Shelf does. The time this read takes says
 * which case it was: a second or two from memory, tens of seconds from the disk.
 */
import { closeSync, fstatSync, openSync, readdirSync, readSync } from 'node:fs'
import { join, sep } from 'node:path'
import { log } from './output.js'

/** Every file below `dir` but Shelf's state folder, read; logs how many and how long it took. */
export function readIntoPageCache(dir: string): void {
    const started = performance.now()
    const state = join(dir, '.shelf')
    const buffer = Buffer.allocUnsafe(1024 * 1024)
    let files = 0
    let bytes = 0
    for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
        const folder = entry.parentPath
        if (!entry.isFile() || folder === state || folder.startsWith(state + sep)) continue
        const descriptor = openSync(join(folder, entry.name), 'r')
        try {
            for (let left = fstatSync(descriptor).size; left > 0;) {
                const read = readSync(descriptor, buffer, 0, buffer.length, null)
                if (read === 0) break
                left -= read
                bytes += read
            }
        } finally {
            closeSync(descriptor)
        }
        files++
    }
    const seconds = (performance.now() - started) / 1000
    log(
        `read ${files} files (${(bytes / 1024 / 1024).toFixed(1)} MiB) of ${dir} into the page cache in ${seconds.toFixed(1)} s`,
    )
}
