import { appendFileSync, mkdirSync, readFileSync } from 'node:fs'
import { dirname } from 'node:path'

/** A revision of a level's chart: its data's hash, and when this server served it from and until. */
export type Revision = { hash: string; from: number; until?: number }

type Entry = { level: string; hash: string; at: number }

/**
 * The level data each level has served, remembered across restarts in the state folder as a log
 * of "from this time, level L served data H" lines: appended as charts change, so a change costs
 * one line, and read back whole at start. A play ranks only on data its level served.
 */
export class ChartRevisions {
    private readonly levels = new Map<string, Revision[]>()
    private pending: Entry[] = []

    private constructor(private readonly file: string | undefined) {}

    /** The revisions kept in `file`; without a file, only what this process sees. */
    static open(file?: string) {
        const revisions = new ChartRevisions(file)
        let text = ''
        try {
            text = file ? readFileSync(file, 'utf8') : ''
        } catch (error) {
            if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
        }
        for (const line of text.split('\n')) {
            // A line cut short by a crash is the one thing a log can hold that is not an entry.
            try {
                if (line) revisions.apply(JSON.parse(line) as Entry)
            } catch {
                continue
            }
        }
        return revisions
    }

    /** The data a level serves now; a change of it starts a revision, written at the next `flush`. */
    observe(level: string, hash: string, at = Date.now()) {
        if (this.current(level)?.hash === hash) return
        const entry = { level, hash, at }
        this.apply(entry)
        this.pending.push(entry)
    }

    current(level: string): Revision | undefined {
        const revisions = this.levels.get(level)
        return revisions?.[revisions.length - 1]
    }

    /** A revision of the level with this data, when the level ever served it. */
    revision(level: string, hash: string): Revision | undefined {
        return this.levels.get(level)?.find((revision) => revision.hash === hash)
    }

    /** What was observed since the last flush, appended to the log. */
    flush() {
        if (!this.pending.length || !this.file) return
        mkdirSync(dirname(this.file), { recursive: true })
        appendFileSync(
            this.file,
            this.pending.map((entry) => `${JSON.stringify(entry)}\n`).join(''),
        )
        this.pending = []
    }

    /** A data served again (a chart change undone) makes its revision the current one again. */
    private apply({ level, hash, at }: Entry) {
        const revisions = this.levels.get(level) ?? []
        const previous = revisions[revisions.length - 1]
        if (previous) previous.until = at
        const again = revisions.findIndex((revision) => revision.hash === hash)
        const revision = again < 0 ? { hash, from: at } : revisions.splice(again, 1)[0]!
        revision.until = undefined
        revisions.push(revision)
        this.levels.set(level, revisions)
    }
}
