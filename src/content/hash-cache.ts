import { statSync, type Stats } from 'node:fs'
import { mkdir } from 'node:fs/promises'
import { dirname } from 'node:path'
import { setImmediate as nextTurn } from 'node:timers/promises'
import { writeFileAtomic } from '../util/atomic-write.js'
import type { FolderListing } from './folder-listing.js'
import { linePieces, parseLines } from './json-lines.js'
import type { ServedFile } from './resources.js'
import { pathHash, SeenEntries, shardCount } from './seen-entries.js'
import { SortedLines } from './sorted-lines.js'

type ResourceEntry = { size: number; mtimeMs: number; served: ServedFile; seen: boolean }
/** A listing's names joined by `/` (which no name holds): a hundred thousand folders' arrays of names cost tens of megabytes. */
type ListingEntry = { ctimeMs: number; files: string; folders: string; seen: boolean }

/**
 * One resource as stored: `[path, size, mtimeMs, hash, contentType]`, and the path of the bytes
 * served when they are not the file itself. Flat arrays keep the file small and quick to parse:
 * at a hundred thousand levels it has 400,000 entries.
 */
type StoredResource = [string, number, number, string, string, string?, number?, number?]
/** One folder as stored: `[path, ctimeMs, files, folders]`, the names joined by `/`, which no name holds; four elements where a resource has five or more. */
type StoredListing = [string, number, string, string]

/** The file's first line; version 3 held every entry in it, as one JSON value. */
type StoredHeader = { version: number; entries?: StoredResource[]; folders?: StoredListing[] }

const toStoredResource = ([path, { size, mtimeMs, served }]: [
    string,
    ResourceEntry,
]): StoredResource =>
    served.slice
        ? [
              path,
              size,
              mtimeMs,
              served.hash,
              served.contentType,
              served.path,
              served.slice.offset,
              served.slice.length,
          ]
        : served.path === path
          ? [path, size, mtimeMs, served.hash, served.contentType]
          : [path, size, mtimeMs, served.hash, served.contentType, served.path]

/** One string per content type, rather than one per resource as parsed. */
const contentTypes = new Map<string, string>()
export const sharedContentType = (type: string) =>
    contentTypes.get(type) ?? (contentTypes.set(type, type), type)

const fromStoredResource = ([
    path,
    size,
    mtimeMs,
    hash,
    contentType,
    servedPath,
    offset,
    length,
]: StoredResource): [string, ResourceEntry] => [
    path,
    {
        size,
        mtimeMs,
        served: {
            hash,
            path: servedPath ?? path,
            contentType: sharedContentType(contentType),
            ...(offset !== undefined && length !== undefined && { slice: { offset, length } }),
        },
        seen: false,
    },
]

const toStoredListing = ([path, { ctimeMs, files, folders }]: [
    string,
    ListingEntry,
]): StoredListing => [path, ctimeMs, files, folders]

const fromStoredListing = ([path, ctimeMs, files, folders]: StoredListing): [
    string,
    ListingEntry,
] => [path, { ctimeMs, files, folders, seen: false }]

const splitNames = (names: string) => (names ? names.split('/') : [])

/**
 * A folder changed in the same tick of the file system's clock as it was listed may change again
 * without its ctime moving, so a listing this fresh is not trusted at the next start.
 */
const racyListingMs = 1000

/**
 * Remembers what each resource file turned into, keyed by path, size and modification time, and
 * what each item folder holds, keyed by path and the folder's ctime (which every entry added,
 * removed or renamed in it moves, and which no tool sets back), so a restart re-reads only files
 * and folders that changed. A missing or unreadable cache just means a cold start.
 *
 * The file is ordered by the hash of each entry's path (`pathHash`), so a load that reads a few
 * items (a start from the snapshot where a few changed, a reload) finds their entries with a few
 * small reads, and its save copies the file's other lines as they are: at a hundred thousand
 * levels the file holds 400,000 entries (90 MB), which took 3 s to read and 160 MB of heap. A load
 * that looks up many (a start that reads every folder) reads the file whole, as before.
 */
export class HashCache {
    /** The save under way, which the next one waits for. */
    private saving: Promise<void> = Promise.resolve()
    /** The entries looked at: those looked up one at a time, or every one of the file (`whole`). */
    private entries = emptyEntries()
    private whole = false
    /** The whole file being read a piece at a time between turns of the event loop (`loaded`). */
    private reading: Promise<void> | undefined
    private keepingUnseen = false
    /** The file as opened to look entries up one at a time; null when it cannot be (`lookable`). */
    private sorted: SortedLines | null | undefined
    /** How many paths are looked up one at a time before the whole file is read instead. */
    private lookupBudget = 0
    /** The paths looked up one at a time (both kinds of entry of a path are found at once). */
    private lookedUp = new Set<string>()

    private constructor(private readonly file: string) {}

    static async open(file: string): Promise<HashCache> {
        return new HashCache(file)
    }

    /**
     * Reads the whole file, when the load looks up enough entries for that to be worth it, a
     * piece at a time between turns of the event loop: at a hundred thousand levels (tens of
     * megabytes) reading it at once held the loop for a second.
     */
    loaded(): Promise<void> {
        if (!this.wantsWhole()) return Promise.resolve()
        return (this.reading ??= (async () => {
            const reading = readingStored(this.file, piecewiseBytes)
            let step = reading.next()
            while (!step.done) {
                await nextTurn()
                step = reading.next()
            }
            this.took(step.value)
        })())
    }

    /**
     * Whether the whole file is to be read rather than entries one at a time: it cannot be looked
     * in (missing, small, of another version), or so many were looked up that the load reads a
     * good share of the items (`bytesPerLookup`).
     */
    private wantsWhole() {
        if (this.whole) return false
        return !this.lookable() || this.lookedUp.size > this.lookupBudget
    }

    /** The file opened to look entries up one at a time, if it is of this version and large enough to be worth it. */
    private lookable() {
        if (this.sorted === undefined) {
            this.sorted = openSorted(this.file)
            if (this.sorted && this.sorted.size < wholeBytes) this.forget()
            this.lookupBudget = (this.sorted?.size ?? 0) / bytesPerLookup
        }
        return this.sorted
    }

    /** Closes the file looked in: it is opened again, as it is then, at the next look-up. */
    private forget() {
        this.sorted?.close()
        this.sorted = null
    }

    /** Reads the whole file at once when `loaded` was not awaited. */
    private readWhole() {
        const reading = readingStored(this.file)
        let step = reading.next()
        while (!step.done) step = reading.next()
        this.took(step.value)
    }

    private took(read: StoredEntries) {
        // Read at once while a piecewise read was under way: the first one read counts.
        if (this.whole) return
        read.resources.absorb(this.entries.resources)
        read.listings.absorb(this.entries.listings)
        this.entries = read
        this.whole = true
        this.lookedUp = new Set()
        this.forget()
        if (this.keepingUnseen) this.keepUnseen()
    }

    /** The entries of a path, looked up in the file if not yet. */
    private entriesOf(path: string) {
        if (this.wantsWhole()) this.readWhole()
        else if (!this.whole) this.lookUp(path)
        return this.entries
    }

    /** Takes in the file's entries of a path, looking for them with a few small reads. */
    private lookUp(path: string) {
        if (this.lookedUp.has(path)) return
        this.lookedUp.add(path)
        const { resources, listings } = this.entries
        let sorted = this.lookable()!
        try {
            // Another process (an export beside the server) may have saved the file since.
            if (statSync(this.file).ino !== sorted.inode) {
                this.forget()
                this.sorted = undefined
                sorted = this.lookable()!
                if (!sorted) return
            }
            for (const { text } of sorted.run(pathHash(path)).lines) {
                const stored = JSON.parse(text) as StoredResource | StoredListing
                if (stored[0] !== path) continue
                if (stored.length === 4) listings.stored(...fromStoredListing(stored))
                else resources.stored(...fromStoredResource(stored as StoredResource))
            }
        } catch {
            // Gone or broken meanwhile: looked up as missing.
        }
    }

    /**
     * Keeps the entries this run does not look at when saving the whole file: a start that took
     * items from its snapshot (start-snapshot.ts) looks at none of theirs, which a later start
     * without the snapshot still needs. Entries of files deleted meanwhile then stay until a
     * start reads every folder. (A save of entries looked up one at a time keeps every other line.)
     */
    keepUnseen() {
        this.keepingUnseen = true
        this.entries.resources.keepUnseen()
        this.entries.listings.keepUnseen()
    }

    /**
     * Forgets the entries once the file holds them all: after a start that read every folder, a
     * hundred thousand levels' 400,000 entries are 160 MB of heap that no request needs, held
     * through the watcher's first scan and the snapshot's save, where the process's memory peaks.
     * The next reload looks up its entries one at a time again; were it to read the whole file,
     * it keeps every entry at the next save, as after a start from the snapshot: this run has
     * looked at every one.
     */
    release() {
        const { resources, listings } = this.entries
        if (
            this.whole
                ? resources.unsaved || listings.unsaved
                : resources.changed || listings.changed
        )
            return
        this.entries = emptyEntries()
        this.whole = false
        this.reading = undefined
        this.lookedUp = new Set()
        this.forget()
        this.sorted = undefined
        this.keepUnseen()
    }

    /**
     * The cached result for a file, if the file is unchanged and any bytes Shelf made from it are
     * still there (`isThere`: told by the processed files present, listed once rather than stat'ed one by one).
     */
    lookup(
        path: string,
        info: Stats,
        isThere: (served: ServedFile) => boolean,
    ): ServedFile | undefined {
        const { resources } = this.entriesOf(path)
        const entry = resources.get(path)
        if (!entry || entry.size !== info.size || entry.mtimeMs !== info.mtimeMs) return undefined
        if (entry.served.path !== path && !isThere(entry.served)) return undefined
        resources.see(entry)
        return entry.served
    }

    /** Whether there is an entry for the file, changed since or not: a file without one needs no stat to be looked up. */
    knows(path: string) {
        return this.entriesOf(path).resources.get(path) !== undefined
    }

    remember(path: string, info: Pick<Stats, 'size' | 'mtimeMs'>, served: ServedFile) {
        this.entries.resources.remember(path, {
            size: info.size,
            mtimeMs: info.mtimeMs,
            served,
            seen: true,
        })
    }

    /** What a folder held when it was listed, if it has not changed since. */
    lookupListing(path: string, info: Stats): FolderListing | undefined {
        const { listings } = this.entriesOf(path)
        const entry = listings.get(path)
        if (!entry || entry.ctimeMs !== info.ctimeMs) return undefined
        listings.see(entry)
        return { files: splitNames(entry.files), folders: splitNames(entry.folders) }
    }

    /** `listedAt` is when the listing was started, by the same clock as the folder's ctime. */
    rememberListing(path: string, info: Stats, listing: FolderListing, listedAt: number) {
        if (listedAt - info.ctimeMs < racyListingMs) return
        this.entries.listings.remember(path, {
            ctimeMs: info.ctimeMs,
            files: listing.files.join('/'),
            folders: listing.folders.join('/'),
            seen: true,
        })
    }

    /**
     * Saves what this load found. With the whole file read, it keeps only the files and folders
     * seen by this load, and a start that found every one unchanged writes nothing: what it would
     * write is what the file holds. With entries looked up one at a time, it writes those seen in
     * place of the file's lines of the same paths, and copies the others as they are (from the
     * file as it is then: another process may have saved it since). The file is written as it is
     * made, a piece between turns of the event loop, so a save of a hundred thousand levels'
     * entries (tens of megabytes) never holds requests up for long; saves run one at a time.
     */
    save() {
        this.saving = this.saving
            .catch(() => undefined)
            .then(async () => {
                const { resources, listings } = this.entries
                if (this.whole) {
                    if (!resources.unsaved && !listings.unsaved) return
                    await mkdir(dirname(this.file), { recursive: true })
                    await writeFileAtomic(this.file, this.wholeText())
                    return
                }
                if (!resources.changed && !listings.changed) return
                await mkdir(dirname(this.file), { recursive: true })
                // A file broken past its header (which no save of Shelf's leaves) is written anew.
                await writeFileAtomic(this.file, this.mergedText(true)).catch(() =>
                    writeFileAtomic(this.file, this.mergedText(false)),
                )
                // Looked in again as it now is.
                this.forget()
                this.sorted = undefined
            })
        return this.saving
    }

    /** Every entry to be written in the file's order: a header line, then an entry a line. */
    private async *wholeText() {
        const { resources, listings } = this.entries
        resources.saving()
        listings.saving()
        yield header
        for (let shard = 0; shard < shardCount; shard++) {
            const lines = [
                ...resources.toWrite(shard).map((pair) => storedLine(toStoredResource(pair))),
                ...listings.toWrite(shard).map((pair) => storedLine(toStoredListing(pair))),
            ]
            yield textOf(inFileOrder(lines))
            await nextTurn()
        }
        resources.saved()
        listings.saved()
    }

    /**
     * The file with the entries seen written in place of its lines of the same paths (and kind),
     * its other lines copied as they are; without `withBase`, the entries seen alone.
     */
    private async *mergedText(withBase: boolean): AsyncGenerator<string | Buffer> {
        const { resources, listings } = this.entries
        resources.saving()
        listings.saving()
        const lines = inFileOrder([
            ...[...resources.seen()].map((pair) => storedLine(toStoredResource(pair))),
            ...[...listings.seen()].map((pair) => storedLine(toStoredListing(pair))),
        ])
        yield header
        const base = withBase && openSorted(this.file)
        if (!base) {
            yield textOf(lines)
            return
        }
        try {
            let copied = base.dataStart
            for (let index = 0; index < lines.length;) {
                const { hash } = lines[index]!
                const replacing: StoredLine[] = []
                while (lines[index]?.hash === hash) replacing.push(lines[index++]!)
                const run = base.run(hash)
                yield* base.copy(copied, run.start)
                for (const line of run.lines) {
                    const stored = JSON.parse(line.text) as unknown[]
                    const replaced = replacing.some(
                        (entry) =>
                            entry.path === stored[0] && entry.listing === (stored.length === 4),
                    )
                    if (!replaced) yield `${line.text}\n`
                }
                yield textOf(replacing)
                copied = run.end
            }
            yield* base.copy(copied, base.size)
        } finally {
            base.close()
        }
    }
}

type StoredEntries = {
    resources: SeenEntries<ResourceEntry>
    listings: SeenEntries<ListingEntry>
}

/** An entry's line, and what the file's order and a merge need of it. */
type StoredLine = { text: string; path: string; hash: number; listing: boolean }

const storedLine = (stored: StoredResource | StoredListing): StoredLine => ({
    text: `${JSON.stringify(stored)}\n`,
    path: stored[0],
    hash: pathHash(stored[0]),
    listing: stored.length === 4,
})

const inFileOrder = (lines: StoredLine[]) => lines.sort((a, b) => a.hash - b.hash)

const textOf = (lines: StoredLine[]) => lines.map(({ text }) => text).join('')

/** The hash a line of the file is ordered by: that of its path. */
const lineHash = (text: string) => pathHash((JSON.parse(text) as [string])[0])

/** The file, to look entries up in, if it is of this version; undefined when missing or not. */
const openSorted = (file: string) => {
    let sorted: SortedLines | undefined
    try {
        sorted = SortedLines.open(file, lineHash)
        if ((JSON.parse(sorted.header) as StoredHeader).version === cacheVersion) return sorted
    } catch {
        // Missing, unreadable or not JSON: read as a whole, which finds nothing in it.
    }
    sorted?.close()
    return null
}

/**
 * The stored entries, read a piece of lines at a time (the generator yields between pieces of
 * `pieceBytes`); none when the file is missing, unreadable, or of another version. Files of
 * versions 3 (the whole cache on one line) and 4 (not in order) are read as well, and written
 * anew at the next save.
 */
function* readingStored(file: string, pieceBytes?: number): Generator<void, StoredEntries> {
    const read = emptyEntries()
    let header: StoredHeader | undefined
    try {
        for (const piece of linePieces(file, pieceBytes)) {
            for (const value of parseLines(piece)) {
                if (!header) {
                    header = value as StoredHeader
                    if (header.version === oneLineVersion || header.version === unorderedVersion) {
                        for (const stored of header.entries ?? [])
                            read.resources.stored(...fromStoredResource(stored))
                        for (const stored of header.folders ?? [])
                            read.listings.stored(...fromStoredListing(stored))
                        read.resources.outdated()
                        read.listings.outdated()
                    } else if (header.version !== cacheVersion) return emptyEntries()
                    continue
                }
                const stored = value as StoredResource | StoredListing
                if (stored.length === 4) read.listings.stored(...fromStoredListing(stored))
                else read.resources.stored(...fromStoredResource(stored as StoredResource))
            }
            yield
        }
    } catch {
        // Missing, unreadable or not JSON: start afresh.
        return emptyEntries()
    }
    return read
}

const emptyEntries = (): StoredEntries => ({
    resources: new SeenEntries<ResourceEntry>(),
    listings: new SeenEntries<ListingEntry>(),
})

/**
 * Bytes of the file parsed between two turns of the event loop when it is read during a reload
 * (`loaded`): a megabyte took 15–20 ms of CPU at a hundred thousand levels, where a reload should
 * hold requests up for a few milliseconds at most.
 */
const piecewiseBytes = 128 * 1024

/** A file smaller than this is read whole at the first look-up: a few milliseconds' work. */
const wholeBytes = 1024 * 1024

/**
 * Bytes of the file per look-up one at a time beyond which it is read whole: a look-up cost
 * 140–200 µs of CPU under load at a hundred thousand levels, about what reading 20 entries (4 KB)
 * costs; but a load that looks up this many is likely to read every folder, in which case each
 * look-up one at a time is lost, so the whole file is read early: at 1,500 look-ups (300 items,
 * 0.2–0.3 s) at a hundred thousand levels, 150 at ten thousand.
 */
const bytesPerLookup = 64 * 1024

/**
 * Bumped whenever what a resource turns into, or how entries are stored, changes, so old caches
 * are not trusted. (The folder listings were added without a bump: a cache without them is read
 * as having none. 3: made bytes live in packs. 4: an entry a line, which 3's entries are read as.
 * 5: the lines in the order of their path's hash, so that one is found without reading the
 * others; 4's are read as a whole.)
 */
const cacheVersion = 5
const unorderedVersion = 4
const oneLineVersion = 3
const header = `{"version":${cacheVersion}}\n`
