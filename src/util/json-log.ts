import { appendFileSync, mkdirSync, readFileSync } from 'node:fs'
import { dirname } from 'node:path'

/**
 * A log of JSON entries, one a line, in the state folder: appended to as things happen, so an
 * entry costs one line whatever the log holds, and read back whole at start. Without a file it
 * keeps nothing (a check of a folder, a test of one snapshot).
 */
export class JsonLog<T> {
    private pending: T[] = []

    constructor(
        private readonly file: string | undefined,
        /** Read, never written: a check of a folder learns from a server's log without touching it. */
        private readonly readOnly = false,
    ) {}

    /** Every entry written so far; a missing file is an empty log. */
    read(): T[] {
        let text = ''
        try {
            text = this.file ? readFileSync(this.file, 'utf8') : ''
        } catch (error) {
            if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
        }
        const entries: T[] = []
        for (const line of text.split('\n')) {
            // A line cut short by a crash is the one thing a log can hold that is not an entry.
            try {
                if (line) entries.push(JSON.parse(line) as T)
            } catch {
                continue
            }
        }
        return entries
    }

    /** An entry to write at the next `flush`. */
    add(entry: T) {
        this.pending.push(entry)
    }

    /** Writes the entries added since the last flush, in one append. */
    flush() {
        if (!this.pending.length || !this.file || this.readOnly) return
        mkdirSync(dirname(this.file), { recursive: true })
        appendFileSync(
            this.file,
            this.pending.map((entry) => `${JSON.stringify(entry)}\n`).join(''),
        )
        this.pending = []
    }
}
