import { closest, distance } from 'fastest-levenshtein'
import { contentTypeInfos, contentTypes, type ContentType } from '../content/item-types.js'
import type { ItemRecord, LeaderboardRecord, LoadedContent } from '../content/load.js'
import type { Problem } from '../content/problems.js'
import type { ServedFile } from '../content/resources.js'
import type { ServerSettings } from '../content/server-settings.js'
import { localesOf, type LocalizedText } from '../content/text.js'
import { newestFirst } from './order.js'
import { sortItems, type ItemSort } from './search.js'

/**
 * An item ready to serve. It is the loaded record itself: records are never changed after
 * loading, so a snapshot shares every unchanged item with the one before it, and references are
 * looked up by name in whichever snapshot renders them.
 */
export type CatalogItem = ItemRecord

export type CatalogOptions = {
    drafts: boolean
}

/** Resolved after the types they point at, so a reference always meets a finished type. */
const resolutionOrder: ContentType[] = ['post', 'skin', 'background', 'effect', 'particle', 'engine', 'level', 'playlist', 'replay']

/** The types whose items can point at each type, for "used by" sections. */
const referrers = new Map<ContentType, { type: ContentType; field: string }[]>(
    contentTypes.map((target) => [
        target,
        contentTypes.flatMap((type) => contentTypeInfos[type].references.filter((reference) => reference.target === target).map(({ field }) => ({ type, field }))),
    ]),
)

/**
 * An immutable snapshot of everything servable, with the indexes requests need, built once per
 * change of the folder. Requests only ever read it, so swapping in a new one is atomic. Built
 * from a previous snapshot, it keeps that one's list order and indexes for what did not change.
 */
export class Catalog {
    readonly settings: ServerSettings
    readonly items = {} as Record<ContentType, Map<string, CatalogItem>>
    /** Items shown in lists, search and sections: newest first, then by name. */
    readonly listed = {} as Record<ContentType, CatalogItem[]>
    /**
     * Served files by hash, shared by every snapshot of one server and only ever added to: the
     * bytes behind a hash never change, so a hash an older snapshot handed out may still be asked for.
     */
    readonly resources: Map<string, ServedFile>
    /** Every locale some text is written in (shared and only added to, like `resources`). */
    readonly locales: Set<string>
    readonly problems: Problem[]

    /** Items the loader left out (`type/name`), to explain references to them. */
    private readonly rejected: Set<string>
    private readonly drafts = {} as Record<ContentType, Set<string>>
    /** Every record that may serve, by type and name, before its references are checked. */
    private readonly candidates = {} as Record<ContentType, Map<string, ItemRecord>>
    private readonly sortedLists = new Map<string, readonly CatalogItem[]>()
    private readonly users = new Map<CatalogItem, Map<ContentType, CatalogItem[]>>()
    private readonly leaderboards = new Map<CatalogItem, LeaderboardRecord[]>()
    private readonly authors = new Map<ContentType, Map<string, CatalogItem[]>>()

    constructor(content: LoadedContent, options: CatalogOptions, previous?: Catalog) {
        this.settings = content.settings
        this.problems = [...content.problems]
        this.rejected = content.rejected
        this.resources = previous?.resources ?? new Map()
        this.locales = previous?.locales ?? new Set()
        this.collectCandidates(content.items, options)
        for (const type of resolutionOrder) this.resolveType(type)
        for (const type of contentTypes) this.listed[type] = this.listType(type, previous)
        for (const type of contentTypes) for (const item of this.items[type].values()) this.checkLeaderboards(item)
        this.indexNewItems(previous)
        this.checkHandPickedSections()
    }

    get(type: ContentType, name: string): CatalogItem | undefined {
        return this.items[type].get(name)
    }

    /** The item a one-item reference field names, or null for "the engine's default". */
    reference(item: CatalogItem, field: string): CatalogItem | null {
        const name = item.fields.references[field]
        const target = contentTypeInfos[item.type].references.find((reference) => reference.field === field)!.target
        return typeof name === 'string' ? this.items[target].get(name)! : null
    }

    /** The items a list reference field names, in order. */
    references(item: CatalogItem, field: string): CatalogItem[] {
        const target = contentTypeInfos[item.type].references.find((reference) => reference.field === field)!.target
        return (item.fields.references[field] as string[]).map((name) => this.items[target].get(name)!)
    }

    /** Items of other types that point at this one (the levels using an engine…), newest first. */
    usersOf(item: CatalogItem): Map<ContentType, CatalogItem[]> {
        let users = this.users.get(item)
        if (!users) {
            users = new Map()
            for (const { type, field } of referrers.get(item.type) ?? []) {
                const using = this.listed[type].filter((other) => {
                    const value = other.fields.references[field]
                    return value === item.name || (Array.isArray(value) && value.includes(item.name))
                })
                if (using.length) users.set(type, [...(users.get(type) ?? []), ...using])
            }
            this.users.set(item, users)
        }
        return users
    }

    /** Listed items of the item's type by the same author (none for an item without one), newest first. */
    byAuthor(item: CatalogItem): readonly CatalogItem[] {
        let index = this.authors.get(item.type)
        if (!index) {
            index = new Map()
            for (const other of this.listed[item.type]) {
                const key = authorKey(other)
                if (key === undefined) continue
                const items = index.get(key)
                if (items) items.push(other)
                else index.set(key, [other])
            }
            this.authors.set(item.type, index)
        }
        const key = authorKey(item)
        return key === undefined ? [] : (index.get(key) ?? [])
    }

    /** An item's leaderboards whose replays all exist in this snapshot. */
    leaderboardsOf(item: CatalogItem): LeaderboardRecord[] {
        return this.leaderboards.get(item) ?? item.leaderboards
    }

    /** A type's listed items in another order; computed on first use, then kept with the snapshot. */
    sortedList(type: ContentType, sort: ItemSort): readonly CatalogItem[] {
        const key = `${type}:${sort.by}:${sort.order}`
        let list = this.sortedLists.get(key)
        if (!list) {
            list = sortItems(this.listed[type], sort, this.settings.fallbackLocale)
            this.sortedLists.set(key, list)
        }
        return list
    }

    private collectCandidates(records: ItemRecord[], options: CatalogOptions) {
        for (const type of contentTypes) {
            this.candidates[type] = new Map()
            this.drafts[type] = new Set()
            this.items[type] = new Map()
        }
        for (const record of records) {
            if (record.fields.draft && !options.drafts) {
                this.drafts[record.type].add(record.name)
                continue
            }
            const existing = this.candidates[record.type].get(record.name)
            if (existing) {
                this.problems.push({ file: record.file, message: `the name "${record.name}" is already used by ${existing.file}: rename one of them`, severity: 'error' })
                continue
            }
            this.candidates[record.type].set(record.name, record)
        }
    }

    /** Keeps the items whose references all name items that serve; reports the others. */
    private resolveType(type: ContentType) {
        const references = contentTypeInfos[type].references
        for (const record of this.candidates[type].values()) {
            let broken = false
            for (const { field, target } of references) {
                const value = record.fields.references[field]
                if (value === null || value === undefined) continue
                for (const name of Array.isArray(value) ? value : [value]) {
                    if (this.items[target].has(name)) continue
                    broken = true
                    this.problems.push({
                        file: record.file,
                        ...record.locateReference(field),
                        message: `${this.whyMissing(target, name)}; ${type} "${record.name}" is left out`,
                        severity: 'error',
                    })
                }
            }
            if (!broken) this.items[type].set(record.name, record)
        }
    }

    private whyMissing(target: ContentType, name: string) {
        const what = `${target} "${name}"`
        if (this.candidates[target].has(name) || this.rejected.has(`${target}/${name}`)) return `${what} has problems of its own (see above)`
        if (this.drafts[target].has(name)) return `${what} is a draft (serve with --drafts to preview it)`
        const known = [...this.items[target].keys()]
        const suggestion = known.length ? closest(name, known) : undefined
        const hint = suggestion && distance(name, suggestion) <= Math.max(2, name.length / 3) ? ` (did you mean "${suggestion}"?)` : ''
        return `${what} does not exist in ${contentTypeInfos[target].plural}/${hint}`
    }

    /**
     * The previous snapshot's order with what changed taken out and put back in its place: a
     * change to one item costs a pass over the list, not a sort of it.
     */
    private listType(type: ContentType, previous: Catalog | undefined): CatalogItem[] {
        const items = this.items[type]
        if (!previous) return [...items.values()].filter((item) => !item.fields.unlisted).sort(newestFirst)
        const kept = previous.listed[type].filter((item) => items.get(item.name) === item)
        const keptSet = new Set(kept)
        for (const item of items.values()) {
            if (item.fields.unlisted || keptSet.has(item)) continue
            kept.splice(insertionIndex(kept, item), 0, item)
        }
        return kept
    }

    /** A leaderboard record may name replays: they must exist, or the leaderboard is left out. */
    private checkLeaderboards(item: CatalogItem) {
        if (!item.leaderboards.length) return
        const valid = item.leaderboards.filter((leaderboard) => {
            const missing = leaderboard.records.flatMap((entry, index) =>
                entry.replays.filter((name) => !this.items.replay.has(name)).map((name) => ({ index, name })),
            )
            for (const { index, name } of missing) {
                this.problems.push({
                    file: leaderboard.file,
                    field: `records[${index}].replays`,
                    message: `replay "${name}" does not exist; leaderboard "${leaderboard.name}" is left out`,
                    severity: 'error',
                })
            }
            return missing.length === 0
        })
        if (valid.length !== item.leaderboards.length) this.leaderboards.set(item, valid)
    }

    /** Adds the resources and locales of items the previous snapshot did not have. */
    private indexNewItems(previous: Catalog | undefined) {
        const banner = this.settings.banner
        if (banner && 'served' in banner) this.resources.set(banner.served.hash, banner.served)
        addLocales(this.locales, this.settings.title)
        addLocales(this.locales, this.settings.description)
        for (const type of contentTypes) {
            for (const item of this.items[type].values()) {
                if (previous?.items[type].get(item.name) === item) continue
                for (const resource of Object.values(item.resources)) {
                    if ('served' in resource) this.resources.set(resource.served.hash, resource.served)
                }
                const { title, subtitle, artists, author, description, tags } = item.fields
                for (const text of [title, subtitle, artists, author, description, ...tags.map((tag) => tag.title)]) addLocales(this.locales, text)
            }
        }
    }

    /** A hand-picked section skips names it cannot find; the owner hears about each one. */
    private checkHandPickedSections() {
        for (const type of contentTypes) {
            this.settings.types[type].sections.forEach((section, index) => {
                for (const name of section.items ?? []) {
                    if (this.items[type].has(name)) continue
                    this.problems.push({
                        file: this.settings.file ?? 'server.yaml',
                        field: `${contentTypeInfos[type].plural}.sections[${index}].items`,
                        message: `${this.whyMissing(type, name)}; the section shows the others`,
                        severity: 'warning',
                    })
                }
            })
        }
    }
}

/** Authors compare as written, every language included; an empty author is nobody. */
const authorKey = (item: CatalogItem) => (item.fields.author === '' ? undefined : JSON.stringify(item.fields.author))

const addLocales = (locales: Set<string>, text: LocalizedText | undefined) => {
    for (const locale of localesOf(text)) locales.add(locale)
}

/** Where `item` goes in a list ordered by `newestFirst`, found by bisection. */
const insertionIndex = (list: readonly CatalogItem[], item: CatalogItem) => {
    let low = 0
    let high = list.length
    while (low < high) {
        const middle = (low + high) >>> 1
        if (newestFirst(list[middle]!, item) < 0) low = middle + 1
        else high = middle
    }
    return low
}
