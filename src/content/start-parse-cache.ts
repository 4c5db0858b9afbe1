import { createHash } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import { writeFileAtomic } from '../util/atomic-write.js'
import { parseRecordFile, type ParsedFile } from './parse-file.js'

/**
 * One file as stored: `[path, hash of its text, its data as JSON, where each of its top-level
 * fields was written, its Markdown body]`.
 */
type StoredEntry = [string, string, string, Positions, string?]
/** Line and column of each top-level field's key, which is where problems and references point. */
type Positions = Record<string, [number, number]>
type StoredCache = { version: number; entries: StoredEntry[] }

/**
 * Bumped whenever what parse-file.ts makes of a text changes (or how entries are stored), so
 * that records parsed by an earlier Shelf are not trusted.
 */
const cacheVersion = 1

const textHash = (text: string) => createHash('sha1').update(text).digest('base64')

/**
 * Data that JSON gives back as it was: YAML's `.inf`, `.nan` and `-0` it would not. A field set
 * to undefined comes back absent, which reads the same.
 */
export const survivesJson = (value: unknown): boolean => {
    if (typeof value === 'number') return Number.isFinite(value) && !Object.is(value, -0)
    if (typeof value === 'string' || typeof value === 'boolean' || value === null) return true
    if (Array.isArray(value)) return value.every(survivesJson)
    return (
        typeof value === 'object' &&
        Object.getPrototypeOf(value) === Object.prototype &&
        Object.values(value).every((field) => field === undefined || survivesJson(field))
    )
}

const topLevelPositions = (parsed: ParsedFile): Positions => {
    const positions: Positions = {}
    const { data } = parsed
    // A record that is not a map is refused by the loader, positions or not.
    if (typeof data !== 'object' || data === null || Array.isArray(data)) return positions
    for (const field of Object.keys(data)) {
        const at = parsed.locate([field])
        if (at) positions[field] = [at.line, at.column]
    }
    return positions
}

/**
 * What the last start's parse of each YAML and Markdown record file gave, kept in the state
 * folder and keyed by the file's path and a hash of its text: a warm start reads every record
 * and hashes it rather than parsing it (YAML's parser, run cold, was a third of a start of the
 * example content). A text that differs in any way is parsed; a file that did not parse is not
 * kept, so its problem is found again. Only the start's load uses it: once saved the entries are
 * let go, so the server holds no second copy of its records, and what reloads parse anew simply
 * misses at the next start. JSON records are parsed as they are, as quickly as from here.
 */
export class StartParseCache {
    /** The entries of the last start; undefined once this start's are saved. */
    private kept: Map<string, StoredEntry> | undefined
    /** The entries of the files this start parsed or found, in the order met. */
    private readonly now = new Map<string, StoredEntry>()
    private missed = false

    private constructor(
        private readonly file: string,
        entries: StoredEntry[],
    ) {
        this.kept = new Map(entries.map((entry) => [entry[0], entry]))
    }

    static async open(file: string): Promise<StartParseCache> {
        try {
            const stored = JSON.parse(await readFile(file, 'utf8')) as StoredCache
            if (stored.version === cacheVersion && Array.isArray(stored.entries))
                return new StartParseCache(file, stored.entries)
        } catch {
            // Missing, unreadable or not JSON: every file is parsed, as at a first start.
        }
        return new StartParseCache(file, [])
    }

    /** `parseRecordFile(path, text)`, from the cache when this path held this text last time. */
    parse(path: string, text: string): ParsedFile {
        if (!this.kept || path.endsWith('.json')) return parseRecordFile(path, text)
        const hash = textHash(text)
        const kept = this.kept.get(path)
        if (kept?.[1] === hash) {
            this.now.set(path, kept)
            const [, , data, positions, body] = kept
            // A field deeper than the top is located only for a problem: the text is parsed again.
            let parsed: ParsedFile | undefined
            return {
                data: JSON.parse(data),
                ...(body !== undefined && { body }),
                locate: (at) => {
                    const position = at.length === 1 ? positions[at[0]!] : undefined
                    if (position) return { line: position[0], column: position[1] }
                    return (parsed ??= parseRecordFile(path, text)).locate(at)
                },
            }
        }
        const parsed = parseRecordFile(path, text)
        this.missed = true
        if (survivesJson(parsed.data))
            this.now.set(path, [
                path,
                hash,
                JSON.stringify(parsed.data),
                topLevelPositions(parsed),
                ...(parsed.body !== undefined ? [parsed.body] : []),
            ] as StoredEntry)
        return parsed
    }

    /**
     * Writes the entries of this start when they differ from the file's (a file parsed, or one
     * gone), then lets every entry go.
     */
    async save() {
        if (!this.kept) return
        const changed = this.missed || this.now.size !== this.kept.size
        const entries = [...this.now.values()]
        this.kept = undefined
        this.now.clear()
        if (changed)
            await writeFileAtomic(
                this.file,
                JSON.stringify({ version: cacheVersion, entries } satisfies StoredCache),
            )
    }
}
