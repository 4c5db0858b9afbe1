import type { Stats } from 'node:fs'
import { mkdir } from 'node:fs/promises'
import { dirname } from 'node:path'
import { setImmediate as nextTurn } from 'node:timers/promises'
import { writeFileAtomic } from '../util/atomic-write.js'
import type { FolderListing } from './folder-listing.js'
import { linePieces, parseLines } from './json-lines.js'
import type { ServedFile } from './resources.js'
import { SeenEntries } from './seen-entries.js'

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
 */
export class HashCache {
    /** The save under way, which the next one waits for. */
    private saving: Promise<void> = Promise.resolve()
    /** The entries, read at the first look: a start that takes every item from its snapshot never reads them. */
    private read: StoredEntries | undefined
    /** The entries being read a piece at a time between turns of the event loop (`loaded`). */
    private reading: Promise<void> | undefined
    private keepingUnseen = false

    private constructor(private readonly file: string) {}

    static async open(file: string): Promise<HashCache> {
        return new HashCache(file)
    }

    /**
     * Reads the entries, if not yet read, a piece at a time between turns of the event loop: after
     * a start that took every item from its snapshot, the first reload reads them, and at a
     * hundred thousand levels (tens of megabytes) reading them at once held the loop for a second.
     */
    loaded(): Promise<void> {
        if (this.read) return Promise.resolve()
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

    /** The entries, read at once when `loaded` was not awaited (nothing else waits during a start). */
    private get entries() {
        if (!this.read) {
            const reading = readingStored(this.file)
            let step = reading.next()
            while (!step.done) step = reading.next()
            this.took(step.value)
        }
        return this.read!
    }

    private took(read: StoredEntries) {
        // Read at once while a piecewise read was under way: the first one read counts.
        if (this.read) return
        this.read = read
        if (this.keepingUnseen) {
            read.resources.keepUnseen()
            read.listings.keepUnseen()
        }
    }

    private get resources() {
        return this.entries.resources
    }

    private get listings() {
        return this.entries.listings
    }

    /**
     * Keeps the entries this run does not look at when saving: a start that took items from its
     * snapshot (start-snapshot.ts) looks at none of theirs, which a later start without the
     * snapshot still needs. Entries of files deleted meanwhile then stay until a start reads
     * every folder.
     */
    keepUnseen() {
        this.keepingUnseen = true
        this.read?.resources.keepUnseen()
        this.read?.listings.keepUnseen()
    }

    /**
     * Forgets the entries once the file holds them all: after a start that read every folder, a
     * hundred thousand levels' 400,000 entries are 160 MB of heap that no request needs, held
     * through the watcher's first scan and the snapshot's save, where the process's memory peaks.
     * The next reload reads them again, a piece at a time (`loaded`), and they are then all kept
     * at the next save, as after a start from the snapshot: this run has looked at every one.
     */
    release() {
        if (!this.read || this.resources.unsaved || this.listings.unsaved) return
        this.read = undefined
        this.reading = undefined
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
        const entry = this.resources.get(path)
        if (!entry || entry.size !== info.size || entry.mtimeMs !== info.mtimeMs) return undefined
        if (entry.served.path !== path && !isThere(entry.served)) return undefined
        this.resources.see(entry)
        return entry.served
    }

    /** Whether there is an entry for the file, changed since or not: a file without one needs no stat to be looked up. */
    knows(path: string) {
        return this.resources.get(path) !== undefined
    }

    remember(path: string, info: Pick<Stats, 'size' | 'mtimeMs'>, served: ServedFile) {
        this.resources.remember(path, {
            size: info.size,
            mtimeMs: info.mtimeMs,
            served,
            seen: true,
        })
    }

    /** What a folder held when it was listed, if it has not changed since. */
    lookupListing(path: string, info: Stats): FolderListing | undefined {
        const entry = this.listings.get(path)
        if (!entry || entry.ctimeMs !== info.ctimeMs) return undefined
        this.listings.see(entry)
        return { files: splitNames(entry.files), folders: splitNames(entry.folders) }
    }

    /** `listedAt` is when the listing was started, by the same clock as the folder's ctime. */
    rememberListing(path: string, info: Stats, listing: FolderListing, listedAt: number) {
        if (listedAt - info.ctimeMs < racyListingMs) return
        this.listings.remember(path, {
            ctimeMs: info.ctimeMs,
            files: listing.files.join('/'),
            folders: listing.folders.join('/'),
            seen: true,
        })
    }

    /**
     * Keeps only the files and folders seen by this load. A start that found every one unchanged
     * writes nothing: what it would write is what the file holds. The file is written as it is
     * made, a piece between turns of the event loop, so a save of a hundred thousand levels'
     * entries (tens of megabytes) never holds requests up for long; saves run one at a time.
     */
    save() {
        this.saving = this.saving
            .catch(() => undefined)
            .then(async () => {
                // Never read, so nothing was remembered either.
                if (!this.read) return
                if (!this.resources.unsaved && !this.listings.unsaved) return
                await mkdir(dirname(this.file), { recursive: true })
                await writeFileAtomic(this.file, this.storedText())
            })
        return this.saving
    }

    /** The file's text in pieces: a header line, then an entry a line (see `readingStored`). */
    private async *storedText() {
        yield `{"version":${cacheVersion}}\n`
        yield* jsonLinePieces(this.resources.takeSeen(entriesPerPiece), toStoredResource)
        yield* jsonLinePieces(this.listings.takeSeen(entriesPerPiece), toStoredListing)
    }
}

type StoredEntries = {
    resources: SeenEntries<ResourceEntry>
    listings: SeenEntries<ListingEntry>
}

/**
 * The stored entries, read a piece of lines at a time (the generator yields between pieces of
 * `pieceBytes`); none when the file is missing, unreadable, or of another version. A file of
 * version 3, the whole cache on one line, is read as well, and written anew at the next save.
 */
function* readingStored(file: string, pieceBytes?: number): Generator<void, StoredEntries> {
    const read = emptyEntries()
    let header: StoredHeader | undefined
    try {
        for (const piece of linePieces(file, pieceBytes)) {
            for (const value of parseLines(piece)) {
                if (!header) {
                    header = value as StoredHeader
                    if (header.version === oneLineVersion) {
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

/** Entries written between two turns of the event loop: about a millisecond's work. */
const entriesPerPiece = 2000

/** Entries as JSON lines, a piece at a time. */
async function* jsonLinePieces<Entry, Stored>(
    pieces: AsyncIterable<Entry[]>,
    store: (entry: Entry) => Stored,
) {
    for await (const piece of pieces) {
        let text = ''
        for (const entry of piece) text += `${JSON.stringify(store(entry))}\n`
        yield text
        await nextTurn()
    }
}

/**
 * Bumped whenever what a resource turns into, or how entries are stored, changes, so old caches
 * are not trusted. (The folder listings were added without a bump: a cache without them is read
 * as having none. 3: made bytes live in packs. 4: an entry a line, which 3's entries are read as.)
 */
const cacheVersion = 4
const oneLineVersion = 3
