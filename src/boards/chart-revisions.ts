import { JsonLog } from '../util/json-log.js'

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

    private constructor(private readonly log: JsonLog<Entry>) {}

    /** The revisions kept in `file`; without a file, only what this process sees. */
    static open(file?: string, readOnly = false) {
        const revisions = new ChartRevisions(new JsonLog(file, readOnly))
        for (const entry of revisions.log.read()) revisions.apply(entry)
        return revisions
    }

    /** The data a level serves now; a change of it starts a revision, written at the next `flush`. */
    observe(level: string, hash: string, at = Date.now()) {
        if (this.current(level)?.hash === hash) return
        const entry = { level, hash, at }
        this.apply(entry)
        this.log.add(entry)
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
        this.log.flush()
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
