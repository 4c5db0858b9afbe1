import { patchSorted, type Order } from '../util/sorted-list.js'
import { contentTypes, type ContentType } from '../content/item-types.js'
import type { CommentRecord } from '../content/comment-file.js'
import type { ItemRecord } from '../content/load.js'
import type { TagRecord } from '../content/records.js'
import type { LocalizedText } from '../content/text.js'
import { LayeredMap } from '../util/layered-map.js'
import { personOf, type Authorship } from './person-names.js'
import type { UserFile } from './user-files.js'

/** A person as a snapshot serves them. Never changed: a change makes a new one. */
export type Person = {
    name: string
    /** The name they are shown by: the owner's title, else the name they last wrote under. */
    title: LocalizedText
    handle?: string
    description?: LocalizedText
    tags: TagRecord[]
    /** When they last wrote something (ms); 0 for a person known only from a file. */
    lastActive: number
    /** The player's id, for a person who wrote as a signed-in player. */
    playerId?: string
    /** What they made and wrote, growing with them (shared by the snapshots). */
    works: Works
}

/** What one person made: items by type, and comments with the item they are on. */
export type Works = {
    items: Map<ContentType, Set<ItemRecord>>
    comments: Map<CommentRecord, ItemRecord>
}

/** How an update of the catalog changed items of each type. */
export type ItemChanges = Record<
    ContentType,
    readonly { before?: ItemRecord; after?: ItemRecord }[]
>

/** Most recently active first, then by name. */
export const activeFirst: Order<Person> = (a, b) =>
    b.lastActive - a.lastActive || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)

/** A record written by a player carries their handle; the app shows them as `name#handle`. */
const nameWithoutHandle = (who: Authorship & { authorHandle?: string }) => {
    const suffix = who.authorHandle === undefined ? undefined : `#${who.authorHandle}`
    const author = who.author
    if (!suffix || typeof author !== 'string' || !author.endsWith(suffix)) return author
    return author.slice(0, -suffix.length)
}

/** The comments two versions of an item share: the same records, read once. */
const commonComments = (before: ItemRecord, after: ItemRecord) => {
    const inAfter = new Set(after.comments)
    return new Set(before.comments.filter((comment) => inAfter.has(comment)))
}

/**
 * Everyone behind the content: every author named in it and every player who wrote something,
 * with what the owner says of them in `users/`. Built from the catalog's item changes, so a play
 * or a comment costs the work of the person who wrote it, not of everyone.
 */
export class People {
    private constructor(
        readonly byName: LayeredMap<string, Person>,
        /** Most recently active first. */
        readonly listed: readonly Person[],
        private readonly works: Map<string, Works>,
    ) {}

    static empty() {
        return new People(LayeredMap.of(), [], new Map())
    }

    get(name: string) {
        return this.byName.get(name)
    }

    /** The next snapshot's people: those whose works or file changed are made again. */
    update(
        changes: ItemChanges,
        files: { get(name: string): UserFile | undefined },
        changedFiles: Iterable<string>,
        fallbackLocale: string,
    ): People {
        const touched = new Set<string>(changedFiles)
        const personOfRecord = (who: Authorship) => personOf(who, fallbackLocale)
        for (const type of contentTypes) {
            for (const { before, after } of changes[type]) {
                // A comment in both versions (when one is posted on an item of ten thousand)
                // changes no one: it only moves to the new version of its item.
                const common = before && after ? commonComments(before, after) : undefined
                if (before)
                    this.forEachWork(before, personOfRecord, (name, works, comment) => {
                        if (comment && common?.has(comment)) return
                        touched.add(name)
                        if (comment) works.comments.delete(comment)
                        else works.items.get(type)?.delete(before)
                    })
                if (after)
                    this.forEachWork(after, personOfRecord, (name, works, comment) => {
                        if (comment && common?.has(comment)) {
                            works.comments.set(comment, after)
                            return
                        }
                        touched.add(name)
                        if (comment) works.comments.set(comment, after)
                        else
                            (
                                works.items.get(type) ?? works.items.set(type, new Set()).get(type)!
                            ).add(after)
                    })
            }
        }
        if (!touched.size) return this
        const changed = new Map<string, Person | undefined>()
        const removed: Person[] = []
        const added: Person[] = []
        for (const name of touched) {
            const old = this.byName.get(name)
            const person = this.personFrom(name, files.get(name))
            changed.set(name, person)
            if (old) removed.push(old)
            if (person) added.push(person)
        }
        return new People(
            this.byName.with(changed),
            patchSorted(this.listed, removed, added, activeFirst),
            this.works,
        )
    }

    /** Calls `visit` for the person of an item and of each of its comments. */
    private forEachWork(
        item: ItemRecord,
        personOfRecord: (who: Authorship) => string | undefined,
        visit: (name: string, works: Works, comment?: CommentRecord) => void,
    ) {
        const owner = personOfRecord(item.fields)
        if (owner !== undefined) visit(owner, this.worksOf(owner))
        for (const comment of item.comments) {
            const writer = personOfRecord(comment)
            if (writer !== undefined) visit(writer, this.worksOf(writer), comment)
        }
    }

    private worksOf(name: string) {
        let works = this.works.get(name)
        if (!works) {
            works = { items: new Map(), comments: new Map() }
            this.works.set(name, works)
        }
        return works
    }

    /** A person from their works and file; none when they have neither. */
    private personFrom(name: string, file: UserFile | undefined): Person | undefined {
        const works = this.worksOf(name)
        let latest: { time: number; who: ItemRecord['fields'] | CommentRecord } | undefined
        const consider = (time: number, who: ItemRecord['fields'] | CommentRecord) => {
            if (!latest || time >= latest.time) latest = { time, who }
        }
        for (const items of works.items.values())
            for (const item of items) consider(item.fields.time ?? 0, item.fields)
        for (const comment of works.comments.keys()) consider(comment.time, comment)
        if (!latest && !file) {
            this.works.delete(name)
            return undefined
        }
        const who = latest?.who
        return {
            name,
            title: file?.title ?? (who ? nameWithoutHandle(who) : name),
            handle: file?.handle ?? who?.authorHandle,
            description: file?.description,
            tags: file?.tags ?? [],
            lastActive: latest?.time ?? 0,
            playerId: who?.authorId,
            works,
        }
    }
}
