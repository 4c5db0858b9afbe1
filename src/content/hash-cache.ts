import type { Stats } from 'node:fs'
import { mkdir, readFile } from 'node:fs/promises'
import { dirname } from 'node:path'
import { writeFileAtomic } from '../util/atomic-write.js'
import type { ServedFile } from './resources.js'

type Entry = { size: number; mtimeMs: number; served: ServedFile }

/**
 * One entry as stored: `[path, size, mtimeMs, hash, contentType]`, and the path of the bytes
 * served when they are not the file itself. Flat arrays keep the file small and quick to parse:
 * at a hundred thousand levels it has 400,000 entries, parsed at every start.
 */
type StoredEntry = [string, number, number, string, string, string?]

const toStored = (path: string, { size, mtimeMs, served }: Entry): StoredEntry =>
    served.path === path ? [path, size, mtimeMs, served.hash, served.contentType] : [path, size, mtimeMs, served.hash, served.contentType, served.path]

const fromStored = ([path, size, mtimeMs, hash, contentType, servedPath]: StoredEntry): [string, Entry] => [
    path,
    { size, mtimeMs, served: { hash, path: servedPath ?? path, contentType } },
]

/**
 * Remembers what each resource file turned into, keyed by path, size and modification time, so
 * a restart re-reads only files that changed. A missing or unreadable cache just means a cold start.
 */
export class HashCache {
    private readonly previous: Map<string, Entry>
    private readonly current = new Map<string, Entry>()
    /** What the file holds is `current` when nothing was remembered since and it has as many entries. */
    private remembered = false
    private stored: number

    private constructor(
        private readonly file: string,
        entries: [string, Entry][],
    ) {
        this.previous = new Map(entries)
        this.stored = this.previous.size
    }

    static async open(file: string): Promise<HashCache> {
        try {
            const parsed = JSON.parse(await readFile(file, 'utf8')) as { version: number; entries: StoredEntry[] }
            return new HashCache(file, parsed.version === cacheVersion && Array.isArray(parsed.entries) ? parsed.entries.map(fromStored) : [])
        } catch {
            return new HashCache(file, [])
        }
    }

    /**
     * The cached result for a file, if the file is unchanged and any bytes Shelf made from it are
     * still there (`madeFiles`: the processed files present, listed once rather than stat'ed one by one).
     */
    lookup(path: string, info: Stats, madeFiles: ReadonlySet<string>): ServedFile | undefined {
        const entry = this.current.get(path) ?? this.previous.get(path)
        if (!entry || entry.size !== info.size || entry.mtimeMs !== info.mtimeMs) return undefined
        if (entry.served.path !== path && !madeFiles.has(entry.served.path)) return undefined
        this.current.set(path, entry)
        return entry.served
    }

    remember(path: string, info: Stats, served: ServedFile) {
        this.current.set(path, { size: info.size, mtimeMs: info.mtimeMs, served })
        this.remembered = true
    }

    /**
     * Keeps only the files seen by this load, so deleted files do not linger in the cache. A start
     * that found every file unchanged writes nothing: what it would write is what the file holds.
     */
    async save() {
        if (!this.remembered && this.current.size === this.stored) return
        const entries = Array.from(this.current, ([path, entry]) => toStored(path, entry))
        this.remembered = false
        this.stored = entries.length
        await mkdir(dirname(this.file), { recursive: true })
        await writeFileAtomic(this.file, JSON.stringify({ version: cacheVersion, entries }))
    }
}

/** Bumped whenever what a resource turns into, or how entries are stored, changes, so old caches are not trusted. */
const cacheVersion = 2
