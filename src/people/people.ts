import { patchSorted, sortedChanges, type Order } from '../util/sorted-list.js'
import { contentTypes, type ContentType } from '../content/item-types.js'
import { commentOrder, type CommentRecord } from '../content/comment-file.js'
import type { ItemRecord } from '../content/load.js'
import type { TagRecord } from '../content/records.js'
import type { LocalizedText } from '../content/text.js'
import { LayeredMap } from '../util/layered-map.js'
import { KeptWorks } from './kept-works.js'
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

/** What one person made: items by type, and comments. */
export type Works = {
    items: Map<ContentType, Set<ItemRecord>>
    comments: Set<CommentRecord>
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

/** The comments a new version of an item took out and brought in (all of them, for an item that came or went). */
const commentChanges = (before: ItemRecord | undefined, after: ItemRecord | undefined) =>
    sortedChanges(before?.comments ?? [], after?.comments ?? [], commentOrder)

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
        private readonly works: Map<string, KeptWorks>,
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
        /** What a record's person made changes: they are made again. */
        const change = (who: Authorship, edit: (works: KeptWorks) => unknown) => {
            const name = personOf(who, fallbackLocale)
            if (name === undefined) return
            touched.add(name)
            edit(this.worksOf(name))
        }
        for (const type of contentTypes) {
            for (const { before, after } of changes[type]) {
                if (before) change(before.fields, (works) => works.removeItem(type, before))
                if (after) change(after.fields, (works) => works.addItem(type, after))
                // Only the comments that changed change anyone: one posted on an item of ten
                // thousand costs its writer, not a visit of every other comment's.
                const { removed, added } = commentChanges(before, after)
                for (const comment of removed)
                    change(comment, (works) => works.removeComment(comment))
                for (const comment of added) change(comment, (works) => works.addComment(comment))
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

    private worksOf(name: string) {
        let works = this.works.get(name)
        if (!works) {
            works = new KeptWorks()
            this.works.set(name, works)
        }
        return works
    }

    /** A person from their works and file; none when they have neither. */
    private personFrom(name: string, file: UserFile | undefined): Person | undefined {
        const kept = this.worksOf(name)
        const latest = kept.latestWork()
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
            works: kept.works,
        }
    }
}
