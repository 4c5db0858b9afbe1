import type { Stats } from 'node:fs'
import { mkdir, readFile } from 'node:fs/promises'
import { dirname } from 'node:path'
import { writeFileAtomic } from '../util/atomic-write.js'
import type { ServedFile } from './resources.js'

type Entry = { size: number; mtimeMs: number; served: ServedFile }

/**
 * Remembers what each resource file turned into, keyed by path, size and modification time, so
 * a restart re-reads only files that changed. A missing or unreadable cache just means a cold start.
 */
export class HashCache {
    private readonly previous: Map<string, Entry>
    private readonly current = new Map<string, Entry>()

    private constructor(
        private readonly file: string,
        entries: [string, Entry][],
    ) {
        this.previous = new Map(entries)
    }

    static async open(file: string): Promise<HashCache> {
        try {
            const parsed = JSON.parse(await readFile(file, 'utf8')) as { version: number; entries: [string, Entry][] }
            return new HashCache(file, parsed.version === cacheVersion && Array.isArray(parsed.entries) ? parsed.entries : [])
        } catch {
            return new HashCache(file, [])
        }
    }

    /**
     * The cached result for a file, if the file is unchanged and any bytes Shelf made from it are
     * still there (`madeFiles`: the processed files present, listed once rather than stat'ed one by one).
     */
    lookup(path: string, info: Stats, madeFiles: ReadonlySet<string>): ServedFile | undefined {
        const entry = this.previous.get(path)
        if (!entry || entry.size !== info.size || entry.mtimeMs !== info.mtimeMs) return undefined
        if (entry.served.path !== path && !madeFiles.has(entry.served.path)) return undefined
        this.current.set(path, entry)
        return entry.served
    }

    remember(path: string, info: Stats, served: ServedFile) {
        this.current.set(path, { size: info.size, mtimeMs: info.mtimeMs, served })
    }

    /** Keeps only the files seen by this load, so deleted files do not linger in the cache. */
    async save() {
        await mkdir(dirname(this.file), { recursive: true })
        await writeFileAtomic(this.file, JSON.stringify({ version: cacheVersion, entries: [...this.current] }))
    }
}

/** Bumped whenever what a resource turns into changes, so old caches are not trusted. */
const cacheVersion = 1
