import { lstatSync, readdirSync, type Stats } from 'node:fs'
import { writeFileAtomic } from '../util/atomic-write.js'
import { isWriteLeftover } from '../util/write-leftovers.js'
import { asciiJsonLine, jsonLines, linePieces } from './json-lines.js'

/**
 * One item folder as it was when its record was read: `[key, ino, mtimeMs, ctimeMs, names]`, the
 * names of its files joined by `/` (which no name holds), then `size, mtimeMs, ctimeMs, ino` of
 * each of them in that order. A file edited in place moves its ctime even when its size stays and
 * its mtime is set back, and no tool sets a ctime back; an entry added, removed or renamed moves
 * the folder's mtime, so the folder is not listed again.
 */
export type FolderCheck = [string, number, number, number, string, ...number[]]

/** The first line of the checks file; a line of each folder's check follows. */
export type ChecksHeader = { format: number; id: string; root: string }

/** Checks the snapshot's folders against the disk (`file`: the checks written with it). */
export type CheckRequest = { check: { file: string; root: string; format: number } }
/** Which folders are unchanged, in the file's order; null when the file is missing, broken or foreign. */
export type CheckAnswer = { checked: { id: string; unchanged: Uint8Array } | null }

/**
 * Writes the checks of a new snapshot: those of the folders checked unchanged (`keep`, their
 * places in the checks of id `keptFrom`, ascending), then the signatures taken now of the folders named in `capture`.
 * A folder is left out when a time of it or of a file in it is not before `before` (it may have
 * changed since its record was read, in the same tick of the clock), when it holds a link or
 * anything but files and folders, a leftover of a write, or one of `partFolders`.
 */
export type SaveRequest = {
    save: {
        /** The checks file now, which the folders kept are copied from… */
        file: string
        /** …and where the new one is written: renamed over it by the caller once its records are written too. */
        next: string
        format: number
        id: string
        root: string
        before: number
        partFolders: string[]
        keep: Int32Array
        keptFrom: string | undefined
        /**
         * The folders' keys, each followed by `keyEnd`: one string is posted to a worker at the
         * cost of a copy, where an array of a hundred thousand keys held the loop 10-20 ms.
         */
        capture: string
    }
}

/** What ends each key of `SaveRequest`'s `capture`: no path holds it. */
export const keyEnd = '\0'
/**
 * Which of the folders to capture were written, in the order asked, and whether every folder to
 * keep was (not when the file checked was replaced meanwhile).
 */
export type SaveAnswer = { saved: Uint8Array; keptAll: boolean } | { failed: string }

const statOf = (path: string): Stats | undefined => {
    try {
        return lstatSync(path, { throwIfNoEntry: false })
    } catch {
        return undefined
    }
}

const isUnchanged = (root: string, check: FolderCheck) => {
    const folder = `${root}/${check[0]}`
    const info = statOf(folder)
    if (
        !info?.isDirectory() ||
        info.ino !== check[1] ||
        info.mtimeMs !== check[2] ||
        info.ctimeMs !== check[3]
    )
        return false
    const names = check[4] ? check[4].split('/') : []
    for (const [index, name] of names.entries()) {
        const at = 5 + index * 4
        const file = statOf(`${folder}/${name}`)
        if (
            !file?.isFile() ||
            file.size !== check[at] ||
            file.mtimeMs !== check[at + 1] ||
            file.ctimeMs !== check[at + 2] ||
            file.ino !== check[at + 3]
        )
            return false
    }
    return true
}

const settled = (info: Stats, before: number) => info.mtimeMs < before && info.ctimeMs < before

const signature = (
    root: string,
    key: string,
    before: number,
    partFolders: Set<string>,
): FolderCheck | undefined => {
    const folder = `${root}/${key}`
    const info = statOf(folder)
    if (!info?.isDirectory() || !settled(info, before)) return undefined
    const names: string[] = []
    const numbers: number[] = []
    try {
        for (const entry of readdirSync(folder, { withFileTypes: true })) {
            if (entry.isDirectory()) {
                if (partFolders.has(entry.name) || isWriteLeftover(entry.name, 'folder'))
                    return undefined
                continue
            }
            if (!entry.isFile() || isWriteLeftover(entry.name, 'file')) return undefined
            const file = statOf(`${folder}/${entry.name}`)
            if (!file?.isFile() || !settled(file, before)) return undefined
            names.push(entry.name)
            numbers.push(file.size, file.mtimeMs, file.ctimeMs, file.ino)
        }
    } catch {
        return undefined
    }
    return [key, info.ino, info.mtimeMs, info.ctimeMs, names.join('/'), ...numbers]
}

/**
 * The checks of a start snapshot's folders and the writing of a new one's, on whichever thread
 * runs them. Both read the checks a line at a time and keep none of them.
 */
export const folderChecks = {
    check({ file, root, format }: CheckRequest['check']): CheckAnswer['checked'] {
        const unchanged: number[] = []
        let header: ChecksHeader | undefined
        try {
            for (const value of jsonLines(file)) {
                if (!header) {
                    header = value as ChecksHeader
                    if (header?.format !== format || header.root !== root) return null
                } else
                    unchanged.push(
                        Array.isArray(value) && isUnchanged(root, value as FolderCheck) ? 1 : 0,
                    )
            }
        } catch {
            return null
        }
        if (!header) return null
        return { id: String(header.id), unchanged: Uint8Array.from(unchanged) }
    },

    async save(request: SaveRequest['save']): Promise<Extract<SaveAnswer, { saved: unknown }>> {
        const parts = new Set(request.partFolders)
        const capture = request.capture.split(keyEnd)
        capture.pop()
        const saved = new Uint8Array(capture.length)
        const captured: string[] = []
        for (const [index, key] of capture.entries()) {
            const found = signature(request.root, key, request.before, parts)
            if (found) captured.push(asciiJsonLine(found))
            saved[index] = found ? 1 : 0
        }
        const { file, next, format, id, root, keep, keptFrom } = request
        const kept = { all: keep.length === 0 }
        async function* lines() {
            yield asciiJsonLine({ format, id, root } satisfies ChecksHeader)
            if (!kept.all && keptFrom !== undefined) yield* keptLines(file, keptFrom, keep, kept)
            for (let start = 0; start < captured.length; start += 1000)
                yield captured.slice(start, start + 1000).join('')
        }
        await writeFileAtomic(next, lines())
        return { saved, keptAll: kept.all }
    },
}

/** The lines of the folders to keep, copied as they are from the checks file of `id`. */
async function* keptLines(file: string, id: string, keep: Int32Array, kept: { all: boolean }) {
    let place = -1
    let next = 0
    for (const piece of linePieces(file)) {
        const lines = piece.split('\n')
        lines.pop()
        let text = ''
        for (const line of lines) {
            if (place === -1) {
                if ((JSON.parse(line) as ChecksHeader).id !== id) return
                place = 0
                continue
            }
            if (place++ !== keep[next]) continue
            text += `${line}\n`
            if (++next === keep.length) break
        }
        yield text
        if (next === keep.length) {
            kept.all = true
            return
        }
    }
}
