import type { CommentRecord } from '../content/comment-file.js'
import type { ContentType } from '../content/item-types.js'
import type { ItemRecord } from '../content/load.js'
import type { Works } from './people.js'

/** A record that carries a person's name as they wrote it then. */
export type Writing = ItemRecord['fields'] | CommentRecord

/** A person's latest work: when, and how they signed it. */
export type LatestWork = { time: number; who: Writing }

/**
 * A work's place in the order that settles ties: by time, then by group (each type of item in
 * the order the person's first item of it came, comments after every type), then by when it came.
 */
type Mark = LatestWork & { group: number; work: ItemRecord | CommentRecord }

const commentsGroup = Number.POSITIVE_INFINITY

/** Whether a work that came after `other` is the later of the two. */
const outranks = (mark: Mark, other: Mark) =>
    mark.time > other.time || (mark.time === other.time && mark.group >= other.group)

/**
 * What one person made and wrote, with their latest work kept as works come and go: at 100,000
 * levels an author has thousands, and finding the latest by a walk of all of them cost every
 * reload that touched one 10-20 ms. Only taking out the latest leaves it unknown; a work that
 * outranks the one taken out settles it again, else the next look walks them (the walk's order
 * is the tie rule's).
 */
export class KeptWorks {
    readonly works: Works = { items: new Map(), comments: new Set() }
    private latest: Mark | undefined
    /** The latest, taken out: every work left is below it, and which of them is the latest is unknown. */
    private lost: Mark | undefined

    addItem(type: ContentType, item: ItemRecord) {
        let items = this.works.items.get(type)
        if (!items) this.works.items.set(type, (items = new Set()))
        if (items.has(item)) return
        items.add(item)
        this.came(this.itemMark(type, item))
    }

    removeItem(type: ContentType, item: ItemRecord) {
        if (this.works.items.get(type)?.delete(item)) this.went(item)
    }

    addComment(comment: CommentRecord) {
        if (this.works.comments.has(comment)) return
        this.works.comments.add(comment)
        this.came({ time: comment.time, group: commentsGroup, who: comment, work: comment })
    }

    removeComment(comment: CommentRecord) {
        if (this.works.comments.delete(comment)) this.went(comment)
    }

    /** The latest work; the last in the walk's order among those of the latest time. None without works. */
    latestWork(): LatestWork | undefined {
        if (this.lost) {
            this.latest = this.walk()
            this.lost = undefined
        }
        return this.latest
    }

    private came(mark: Mark) {
        if (this.lost) {
            if (!outranks(mark, this.lost)) return
            this.lost = undefined
        } else if (this.latest && !outranks(mark, this.latest)) return
        this.latest = mark
    }

    private went(work: ItemRecord | CommentRecord) {
        if (this.latest?.work !== work) return
        this.lost = this.latest
        this.latest = undefined
    }

    private walk() {
        let latest: Mark | undefined
        const consider = (mark: Mark) => {
            if (!latest || mark.time >= latest.time) latest = mark
        }
        let group = 0
        for (const items of this.works.items.values()) {
            for (const item of items)
                consider({ time: item.fields.time ?? 0, group, who: item.fields, work: item })
            group++
        }
        for (const comment of this.works.comments)
            consider({ time: comment.time, group: commentsGroup, who: comment, work: comment })
        return latest
    }

    private itemMark(type: ContentType, item: ItemRecord): Mark {
        const group = [...this.works.items.keys()].indexOf(type)
        return { time: item.fields.time ?? 0, group, who: item.fields, work: item }
    }
}
