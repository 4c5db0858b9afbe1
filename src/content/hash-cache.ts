import type { Stats } from 'node:fs'
import { readFileSync } from 'node:fs'
import { mkdir } from 'node:fs/promises'
import { dirname } from 'node:path'
import { setImmediate as nextTurn } from 'node:timers/promises'
import { writeFileAtomic } from '../util/atomic-write.js'
import type { FolderListing } from './folder-listing.js'
import type { ServedFile } from './resources.js'
import { SeenEntries } from './seen-entries.js'

type ResourceEntry = { size: number; mtimeMs: number; served: ServedFile; seen: boolean }
/** A listing's names joined by `/` (which no name holds): a hundred thousand folders' arrays of names cost tens of megabytes. */
type ListingEntry = { ctimeMs: number; files: string; folders: string; seen: boolean }

/**
 * One resource as stored: `[path, size, mtimeMs, hash, contentType]`, and the path of the bytes
 * served when they are not the file itself. Flat arrays keep the file small and quick to parse:
 * at a hundred thousand levels it has 400,000 entries, parsed at every start.
 */
type StoredResource = [string, number, number, string, string, string?, number?, number?]
/** One folder as stored: `[path, ctimeMs, files, folders]`, the names joined by `/`, which no name holds. */
type StoredListing = [string, number, string, string]

type StoredCache = { version: number; entries: StoredResource[]; folders?: StoredListing[] }

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
    private read:
        { resources: SeenEntries<ResourceEntry>; listings: SeenEntries<ListingEntry> } | undefined
    private keepingUnseen = false

    private constructor(private readonly file: string) {}

    static async open(file: string): Promise<HashCache> {
        return new HashCache(file)
    }

    private get entries() {
        if (!this.read) {
            this.read = readStored(this.file)
            if (this.keepingUnseen) {
                this.read.resources.keepUnseen()
                this.read.listings.keepUnseen()
            }
        }
        return this.read
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

    remember(path: string, info: Stats, served: ServedFile) {
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

    /** The file's text in pieces: `{"version":…,"entries":[…],"folders":[…]}`. */
    private async *storedText() {
        yield `{"version":${cacheVersion},"entries":[`
        yield* jsonElements(this.resources.takeSeen(entriesPerPiece), toStoredResource)
        yield '],"folders":['
        yield* jsonElements(this.listings.takeSeen(entriesPerPiece), toStoredListing)
        yield ']}'
    }
}

/** The stored entries; none when the file is missing, unreadable, or of another version. */
const readStored = (file: string) => {
    try {
        const parsed = JSON.parse(readFileSync(file, 'utf8')) as StoredCache
        if (parsed.version === cacheVersion && Array.isArray(parsed.entries))
            return {
                resources: new SeenEntries(parsed.entries.map(fromStoredResource)),
                listings: new SeenEntries((parsed.folders ?? []).map(fromStoredListing)),
            }
    } catch {
        // Unreadable or not JSON: start afresh, as below.
    }
    return {
        resources: new SeenEntries<ResourceEntry>([]),
        listings: new SeenEntries<ListingEntry>([]),
    }
}

/** Entries written between two turns of the event loop: about a millisecond's work. */
const entriesPerPiece = 2000

/** The elements of a JSON array, a piece at a time, with the commas between them. */
async function* jsonElements<Entry, Stored>(
    pieces: AsyncIterable<Entry[]>,
    store: (entry: Entry) => Stored,
) {
    let first = true
    for await (const piece of pieces) {
        const text = JSON.stringify(piece.map(store))
        yield `${first ? '' : ','}${text.slice(1, -1)}`
        first = false
        await nextTurn()
    }
}

/**
 * Bumped whenever what a resource turns into, or how entries are stored, changes, so old caches
 * are not trusted. (The folder listings were added without a bump: a cache without them is read
 * as having none. 3: made bytes live in packs.)
 */
const cacheVersion = 3
