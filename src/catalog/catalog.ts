import { contentTypeInfos, contentTypes, type ContentType } from '../content/item-types.js'
import type { ItemRecord, LeaderboardRecord, LoadedContent } from '../content/load.js'
import type { Problem } from '../content/problems.js'
import type { ServerSettings } from '../content/server-settings.js'
import { localesOf, type LocalizedText } from '../content/text.js'
import { BoardBook } from '../boards/board-book.js'
import { ChartRevisions } from '../boards/chart-revisions.js'
import { PlayResults } from '../boards/play-results.js'
import { People } from '../people/people.js'
import type { UserFiles } from '../people/user-files.js'
import { ChunkedList } from '../util/chunked-list.js'
import { LayeredMap } from '../util/layered-map.js'
import { TurnSlices } from '../util/turn-slices.js'
import { newestFirst } from './order.js'
import type { Order } from '../util/sorted-list.js'
import { referrers, Resolution, type ItemChange } from './resolution.js'
import { ResourceTable } from './resource-table.js'
import { makeSearchable, SearchIndex } from './search-index.js'
import { sortItems, sortOrder, type ItemSort } from './search.js'
import { IndexBuilder } from './worker-built-index.js'

/**
 * An item ready to serve. It is the loaded record itself: records are never changed after
 * loading, so a snapshot shares every unchanged item with the one before it, and references are
 * looked up by name in whichever snapshot renders them.
 */
export type CatalogItem = ItemRecord

/** Items in an order, as a snapshot keeps them: patched, not copied, by the next (see `ChunkedList`). */
export type ItemList = ChunkedList<CatalogItem>

export type CatalogOptions = {
    drafts: boolean
    /** What boards and people are made of besides the items; without it no play ranks and nobody has a file. */
    community?: CommunitySources
}

/** Kept by the server across snapshots: the plays read, the charts served, the owner's people files. */
export type CommunitySources = {
    plays: PlayResults
    revisions: ChartRevisions
    userFiles?: UserFiles
}

/** The items a snapshot adds to a type's lists and takes out of them. */
type ListChange = { removed: CatalogItem[]; added: CatalogItem[] }

/**
 * An immutable snapshot of everything servable, with the indexes requests need. Requests only
 * ever read it, so swapping in a new one is atomic. Built from the snapshot before it, it costs
 * what changed: it takes over that one's decisions (`Resolution`) and patches its lists and
 * indexes with the items that changed, sharing everything else.
 */
export class Catalog {
    readonly settings: ServerSettings
    readonly items = {} as Record<ContentType, ReadonlyMap<string, CatalogItem>>
    /** Items shown in lists, search and sections: newest first, then by name. */
    readonly listed = {} as Record<ContentType, ItemList>
    /**
     * Served files by hash, shared by every snapshot of one server and only ever added to: the
     * bytes behind a hash never change, so a hash an older snapshot handed out may still be asked for.
     */
    readonly resources: ResourceTable
    /** Every locale some text is written in (shared and only added to, like `resources`). */
    readonly locales: Set<string>
    readonly problems: Problem[]
    /** Boards of submitted plays; shared by the snapshots, and always up to date with the newest. */
    readonly boards: BoardBook
    readonly people: People

    private readonly contentVersion: number
    /** What this snapshot decided, handed on to the next one, which carries on from it. */
    private resolution: Resolution | undefined
    private readonly leaderboards: ReadonlyMap<CatalogItem, LeaderboardRecord[]>
    // Built on first use, then patched by each following snapshot rather than built again.
    private readonly sortedLists = new Map<string, { sort: ItemSort; list: ItemList }>()
    private readonly authors: Partial<Record<ContentType, LayeredMap<string, ItemList>>> = {}
    /** The listed items of a type pointing at each name through a field (`replay:level`), newest first. */
    private readonly referring = new Map<string, LayeredMap<string, ItemList>>()
    private readonly searchIndexes: Partial<Record<ContentType, SearchIndex>> = {}
    /**
     * Indexes a worker is building for this snapshot or one before it, with this one's changes
     * added once they come: a write during the first build at 100,000 levels made the next
     * snapshot build its own, doubling a second and a half of work and garbage.
     */
    private readonly indexesArriving: Partial<
        Record<ContentType, Promise<SearchIndex | undefined>>
    > = {}
    /** Indexes `buildSearchIndexesInSlices` has begun, holding the first of the listed items (as many as their slots). */
    private readonly indexesBuilding: Partial<Record<ContentType, SearchIndex>> = {}
    private readonly users = new Map<CatalogItem, Map<ContentType, Iterable<CatalogItem>>>()

    constructor(content: LoadedContent, options: CatalogOptions, previous?: Catalog) {
        this.settings = content.settings
        this.resources = previous?.resources ?? new ResourceTable()
        this.locales = previous?.locales ?? new Set()
        this.contentVersion = content.version
        const carried = previous?.handOver(content, options)
        const resolution = carried ?? new Resolution(options.drafts)
        const changes = resolution.update(
            content.units,
            carried ? content.changed : content.units.keys(),
            content.fallbacks,
        )
        const base = carried && previous
        this.items = resolution.items
        this.leaderboards = resolution.leaderboards
        for (const type of contentTypes) {
            const listChange = listChangeOf(changes[type])
            this.listed[type] = (base?.listed[type] ?? ChunkedList.of()).patched(
                listChange.removed,
                listChange.added,
                newestFirst,
            )
            makeSearchable(this.listed[type], () => this.searchIndex(type))
            if (base) this.carryIndexes(base, type, listChange)
        }
        this.indexNewItems(changes)
        const community = options.community
        this.boards =
            base?.boards ??
            new BoardBook(
                community?.plays ?? PlayResults.open(),
                community?.revisions ?? ChartRevisions.open(),
            )
        this.boards.update({
            settings: this.settings,
            level: (name) => this.items.level.get(name),
            all: () => ({ replays: this.items.replay.values(), levels: this.items.level.values() }),
            replays: changes.replay,
            levels: changes.level,
        })
        const userFiles = community?.userFiles
        const changedFiles = userFiles?.takeChanged() ?? []
        this.people = (base?.people ?? People.empty()).update(
            changes,
            { get: (name) => userFiles?.get(name) },
            base ? changedFiles : (userFiles?.names() ?? []),
            this.settings.fallbackLocale,
        )
        this.problems = [
            ...completeReferenceProblems(content.problems, resolution),
            ...resolution.problems(),
            ...this.handPickedProblems(resolution),
            ...this.boards.problems(),
            ...(userFiles?.problems ?? []),
        ]
        this.resolution = resolution
    }

    get(type: ContentType, name: string): CatalogItem | undefined {
        return this.items[type].get(name)
    }

    /** How many items serve, of every type. */
    get itemCount() {
        return contentTypes.reduce((count, type) => count + this.items[type].size, 0)
    }

    /** The item a one-item reference field names, or null for "the engine's default". */
    reference(item: CatalogItem, field: string): CatalogItem | null {
        const name = item.fields.references[field]
        const target = contentTypeInfos[item.type].references.find(
            (reference) => reference.field === field,
        )!.target
        return typeof name === 'string' ? this.items[target].get(name)! : null
    }

    /** The items a list reference field names, in order. */
    references(item: CatalogItem, field: string): CatalogItem[] {
        const target = contentTypeInfos[item.type].references.find(
            (reference) => reference.field === field,
        )!.target
        return (item.fields.references[field] as string[]).map((name) =>
            this.items[target].get(name)!,
        )
    }

    /** Items of other types that point at this one (the levels using an engine…), newest first. */
    usersOf(item: CatalogItem): Map<ContentType, Iterable<CatalogItem>> {
        let users = this.users.get(item)
        if (!users) {
            users = new Map()
            for (const { type, field } of referrers.get(item.type) ?? []) {
                const using = this.referringTo(type, field).get(item.name) ?? []
                // The group itself when it is the type's only one: a level's hundred thousand replays are not copied per snapshot.
                const before = users.get(type)
                if (using.length) users.set(type, before ? [...before, ...using] : using)
            }
            this.users.set(item, users)
        }
        return users
    }

    private referringTo(type: ContentType, field: string) {
        const key = referringKey(type, field)
        let groups = this.referring.get(key)
        if (!groups) {
            groups = LayeredMap.of(groupBy(this.listed[type], referencedBy(field)))
            this.referring.set(key, groups)
        }
        return groups
    }

    /** Listed items of the item's type by the same author (none for an item without one), newest first. */
    byAuthor(item: CatalogItem): ItemList {
        const key = authorKey(item)
        if (key === undefined) return ChunkedList.of()
        this.authors[item.type] ??= LayeredMap.of(groupBy(this.listed[item.type], authorKeys))
        return this.authors[item.type]!.get(key) ?? ChunkedList.of()
    }

    /** An item's leaderboards whose replays all exist in this snapshot. */
    leaderboardsOf(item: CatalogItem): LeaderboardRecord[] {
        return this.leaderboards.get(item) ?? item.leaderboards
    }

    /** A type's listed items in another order; computed on first use, then kept with the snapshot. */
    sortedList(type: ContentType, sort: ItemSort): ItemList {
        const key = sortedListKey(type, sort)
        let sorted = this.sortedLists.get(key)
        if (!sorted) {
            sorted = {
                sort,
                list: ChunkedList.of(
                    sortItems(this.listed[type].toArray(), sort, this.settings.fallbackLocale),
                ),
            }
            this.sortedLists.set(key, sorted)
            makeSearchable(sorted.list, () => this.searchIndex(type))
        }
        return sorted.list
    }

    /** The decisions of this snapshot for the next one, if that one follows it directly; given once. */
    private handOver(content: LoadedContent, options: CatalogOptions) {
        const resolution = this.resolution
        this.resolution = undefined
        const follows =
            content.version === this.contentVersion + 1 &&
            resolution?.servesDrafts === options.drafts
        return follows ? resolution : undefined
    }

    private searchIndex(type: ContentType) {
        return (this.searchIndexes[type] ??= this.finishIndex(type))
    }

    /** The type's index with every listed item: the one begun in slices, finished, or a new one. */
    private finishIndex(type: ContentType) {
        const index = this.indexesBuilding[type] ?? new SearchIndex()
        delete this.indexesBuilding[type]
        const list = this.listed[type].toArray()
        for (let at = index.slotCount; at < list.length; at++) index.add(list[at]!)
        return index
    }

    /**
     * Builds each type's search index on a worker, below the serving thread's priority, which
     * makes the items' texts a slice of time at a time (see `IndexBuilder`); in slices here as
     * before if the worker fails. A search arriving meanwhile builds its type's index here at
     * once, as it did: searches answer synchronously, within the list request that asks them,
     * and the worker's index comes a second at most after the listening line at 10,000 levels.
     */
    async buildSearchIndexes(slices = new TurnSlices(), current = () => true) {
        let builder: IndexBuilder | undefined
        try {
            for (const type of contentTypes) {
                // A newer snapshot carries on what this one began and builds the rest itself.
                if (!current()) return
                // Not a turn's wait when nothing comes: a snapshot made meanwhile would miss the build.
                if (this.indexesArriving[type]) await this.indexesArriving[type]
                if (this.searchIndexes[type]) continue
                // Started for the first index still to build: a catalog whose searches built
                // them all starts no worker.
                builder ??= new IndexBuilder()
                const arriving = builder.build(this.listed[type].toArray(), slices)
                this.indexesArriving[type] = arriving.catch(() => undefined)
                this.searchIndexes[type] ??= await arriving
            }
        } catch (error) {
            console.error(
                `shelf: building the search indexes on a worker failed, building them here: ${(error as Error).message}`,
            )
            await this.buildSearchIndexesInSlices(slices)
        } finally {
            builder?.close()
        }
    }

    /**
     * Builds each type's search index a slice of time at a time, rather than in the first quick
     * search, which at 10,000 levels held every other request 0.6 s (seconds at 100,000). A
     * search arriving meanwhile finishes its type's index at once.
     */
    async buildSearchIndexesInSlices(slices = new TurnSlices()) {
        for (const type of contentTypes) {
            if (this.searchIndexes[type]) continue
            const list = this.listed[type].toArray()
            const index = (this.indexesBuilding[type] ??= new SearchIndex())
            while (index.slotCount < list.length && !this.searchIndexes[type]) {
                index.add(list[index.slotCount]!)
                if (slices.due()) await slices.pause()
            }
            this.searchIndexes[type] ??= index
            delete this.indexesBuilding[type]
        }
    }

    /** Patches what the snapshot before had built for a type, rather than building it again on first use. */
    private carryIndexes(base: Catalog, type: ContentType, change: ListChange) {
        const index = base.searchIndexes[type]
        const arriving = base.indexesArriving[type]
        if (index) {
            if (this.carries(index, type, change)) this.searchIndexes[type] = index
        } else if (arriving)
            this.indexesArriving[type] = arriving.then((built) => {
                if (!built || !this.carries(built, type, change)) return undefined
                this.searchIndexes[type] ??= built
                return built
            })
        const authors = base.authors[type]
        if (authors) this.authors[type] = patchGroups(authors, change, authorKeys, newestFirst)
        for (const { field } of contentTypeInfos[type].references) {
            const key = referringKey(type, field)
            const groups = base.referring.get(key)
            if (groups)
                this.referring.set(
                    key,
                    patchGroups(groups, change, referencedBy(field), newestFirst),
                )
        }
        // Titles and authors sort by their text in the fallback locale: another one orders them anew.
        if (base.settings.fallbackLocale !== this.settings.fallbackLocale) return
        for (const [key, { sort, list }] of base.sortedLists) {
            if (!key.startsWith(`${type}:`)) continue
            const sorted = {
                sort,
                list: list.patched(
                    change.removed,
                    change.added,
                    sortOrder(sort, this.settings.fallbackLocale),
                ),
            }
            this.sortedLists.set(key, sorted)
            makeSearchable(sorted.list, () => this.searchIndex(type))
        }
    }

    /** Adds the items a snapshot added to the index before's, unless it holds too many the snapshot no longer lists. */
    private carries(index: SearchIndex, type: ContentType, change: ListChange) {
        // Every change leaves a slot no later snapshot lists: past as many as listed, a new index is smaller.
        if (index.slotCount + change.added.length > 2 * this.listed[type].length + indexSlack)
            return false
        for (const item of change.added) index.add(item)
        return true
    }

    /** Adds the resources (put in the table later, see `ResourceTable.addLater`) and locales of the items that changed. */
    private indexNewItems(changes: Record<ContentType, ItemChange[]>) {
        // About four files an item (a level's cover, music, preview and chart).
        this.resources.reserve(
            4 * contentTypes.reduce((sum, type) => sum + changes[type].length, 0),
        )
        this.resources.addLater(servedFilesOf(this.settings, changes))
        addLocales(this.locales, this.settings.title)
        addLocales(this.locales, this.settings.description)
        for (const type of contentTypes) {
            for (const { after: item } of changes[type]) {
                if (!item) continue
                const { title, subtitle, artists, author, description, tags } = item.fields
                for (const text of [title, subtitle, artists, author, description])
                    addLocales(this.locales, text)
                for (const tag of tags) addLocales(this.locales, tag.title)
            }
        }
    }

    /** A hand-picked section skips names it cannot find; the owner hears about each one. */
    private handPickedProblems(resolution: Resolution): Problem[] {
        return contentTypes.flatMap((type) =>
            this.settings.types[type].sections.flatMap((section, index) =>
                (section.items ?? [])
                    .filter((name) => !this.items[type].has(name))
                    .map((name) => ({
                        file: this.settings.file ?? 'server.yaml',
                        field: `${contentTypeInfos[type].plural}.sections[${index}].items`,
                        message: `${resolution.whyMissing(type, name)}; the section shows the others`,
                        severity: 'warning' as const,
                    })),
            ),
        )
    }
}

/** The files the banner and the items that changed serve. */
function* servedFilesOf(settings: ServerSettings, changes: Record<ContentType, ItemChange[]>) {
    const banner = settings.banner
    if (banner && 'served' in banner) yield banner.served
    for (const type of contentTypes) {
        for (const { after: item } of changes[type]) {
            if (!item) continue
            for (const role in item.resources) {
                const resource = item.resources[role]!
                if ('served' in resource) yield resource.served
            }
        }
    }
}

/** The problems of the folder, with the references of records that failed validation checked. */
const completeReferenceProblems = (problems: Problem[], resolution: Resolution) =>
    problems.flatMap((problem) => {
        const { reference, ...rest } = problem
        if (!reference) return [problem]
        if (resolution.items[reference.type].has(reference.name)) return []
        return [
            {
                ...rest,
                message: resolution.whyMissing(reference.type, reference.name) + rest.message,
            },
        ]
    })

/** Slots an index may waste beyond the items listed before it is built again. */
const indexSlack = 1024

const sortedListKey = (type: ContentType, sort: ItemSort) => `${type}:${sort.by}:${sort.order}`

/** What a type's changes add to its lists and take out: unlisted items are in none. */
const listChangeOf = (changes: readonly ItemChange[]): ListChange => ({
    removed: changes.flatMap(({ before }) => (before && !before.fields.unlisted ? [before] : [])),
    added: changes.flatMap(({ after }) => (after && !after.fields.unlisted ? [after] : [])),
})

/** Authors compare as written, every language included; an empty author is nobody. */
const authorKey = (item: CatalogItem) =>
    item.fields.author === '' ? undefined : JSON.stringify(item.fields.author)

const authorKeys = (item: CatalogItem) => {
    const key = authorKey(item)
    return key === undefined ? [] : [key]
}

const referringKey = (type: ContentType, field: string) => `${type}:${field}`

/** The names an item's reference field points at. */
const referencedBy = (field: string) => (item: CatalogItem) => {
    const value = item.fields.references[field]
    return typeof value === 'string' ? [value] : Array.isArray(value) ? [...new Set(value)] : []
}

/** Sorted items in groups by their keys (an item with several keys is in each of their groups), each in the items' order. */
const groupBy = (items: ItemList, keysOf: (item: CatalogItem) => string[]) => {
    const groups = new Map<string, CatalogItem[]>()
    for (const item of items.toArray()) {
        for (const key of keysOf(item)) {
            const group = groups.get(key)
            if (group) group.push(item)
            else groups.set(key, [item])
        }
    }
    return new Map([...groups].map(([key, group]) => [key, ChunkedList.of(group)]))
}

/** Groups of sorted items with a list change applied, each group touched patched in its order. */
const patchGroups = (
    groups: LayeredMap<string, ItemList>,
    { removed, added }: ListChange,
    keysOf: (item: CatalogItem) => string[],
    order: Order<CatalogItem>,
) => {
    const touched = new Map<string, ListChange>()
    const changeOf = (key: string) =>
        touched.get(key) ?? touched.set(key, { removed: [], added: [] }).get(key)!
    for (const item of removed) for (const key of keysOf(item)) changeOf(key).removed.push(item)
    for (const item of added) for (const key of keysOf(item)) changeOf(key).added.push(item)
    const patched = new Map<string, ItemList | undefined>()
    for (const [key, change] of touched) {
        const group = (groups.get(key) ?? ChunkedList.of()).patched(
            change.removed,
            change.added,
            order,
        )
        patched.set(key, group.length ? group : undefined)
    }
    return groups.with(patched)
}

const addLocales = (locales: Set<string>, text: LocalizedText | undefined) => {
    for (const locale of localesOf(text)) locales.add(locale)
}
