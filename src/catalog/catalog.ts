import { closest, distance } from 'fastest-levenshtein'
import { contentTypeInfos, contentTypes, type ContentType } from '../content/item-types.js'
import type { ItemRecord, LoadedContent } from '../content/load.js'
import type { Problem } from '../content/problems.js'
import type { ServedFile } from '../content/resources.js'
import type { ServerSettings } from '../content/server-settings.js'
import { allVariants, localesOf, type LocalizedText } from '../content/text.js'
import { newestFirst } from './order.js'
import { sortItems, type ItemSort } from './search.js'

/** An item ready to serve: its references point at other catalog items, never at names. */
export type CatalogItem = ItemRecord & {
    resolved: Record<string, CatalogItem | CatalogItem[] | null>
    /** Lower-cased text of every searchable field in every language. */
    searchText: string
    /** Items of other types that point at this one, e.g. the levels using an engine. */
    usedBy: Map<ContentType, CatalogItem[]>
}

export type CatalogOptions = {
    drafts: boolean
}

/**
 * An immutable snapshot of everything servable, with the indexes requests need, built once per
 * change of the folder. Requests only ever read it, so swapping in a new one is atomic.
 */
export class Catalog {
    readonly items = {} as Record<ContentType, Map<string, CatalogItem>>
    /** Items shown in lists, search and sections: newest first, then by name. */
    readonly listed = {} as Record<ContentType, CatalogItem[]>
    readonly resources = new Map<string, ServedFile>()
    /** Every locale some text is written in; other requested locales all render like the fallback. */
    readonly locales = new Set<string>()
    readonly problems: Problem[]
    /** Items the loader left out (`type/name`), to explain references to them. */
    private readonly rejected: Set<string>
    /** Names of drafts left out of this snapshot, to explain references to them. */
    private drafts = {} as Record<ContentType, Set<string>>
    /** Every record that may serve, by type and name, before its references are checked. */
    private candidates = {} as Record<ContentType, Map<string, ItemRecord>>

    readonly settings: ServerSettings

    constructor(content: LoadedContent, options: CatalogOptions) {
        this.settings = content.settings
        this.problems = [...content.problems]
        this.rejected = content.rejected
        this.collectCandidates(content.items, options)
        // Types are resolved after the types they point at, so a reference always meets a finished item.
        for (const type of resolutionOrder) this.resolveType(type)
        // Leaderboards point at replays, which resolve last, so they are checked once all types are in.
        for (const type of contentTypes) {
            for (const item of this.items[type].values()) item.leaderboards = this.leaderboardsWithReplays(item)
        }
        for (const type of contentTypes) {
            this.listed[type] = [...this.items[type].values()].filter((item) => !item.fields.unlisted).sort(newestFirst)
        }
        this.indexUsage()
        this.indexResources()
        this.indexLocales()
        this.checkHandPickedSections()
    }

    get(type: ContentType, name: string): CatalogItem | undefined {
        return this.items[type].get(name)
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

    private readonly sortedLists = new Map<string, readonly CatalogItem[]>()

    private collectCandidates(records: ItemRecord[], options: CatalogOptions) {
        const candidates = {} as Record<ContentType, Map<string, ItemRecord>>
        const drafts = {} as Record<ContentType, Set<string>>
        for (const type of contentTypes) {
            candidates[type] = new Map()
            drafts[type] = new Set()
            this.items[type] = new Map()
        }
        for (const record of records) {
            if (record.fields.draft && !options.drafts) {
                drafts[record.type].add(record.name)
                continue
            }
            const existing = candidates[record.type].get(record.name)
            if (existing) {
                this.problems.push({ file: record.file, message: `the name "${record.name}" is already used by ${existing.file}: rename one of them`, severity: 'error' })
                continue
            }
            candidates[record.type].set(record.name, record)
        }
        this.drafts = drafts
        this.candidates = candidates
    }

    private resolveType(type: ContentType) {
        for (const record of this.candidates[type].values()) {
            const resolved: CatalogItem['resolved'] = {}
            let broken = false
            for (const { field, target } of contentTypeInfos[type].references) {
                const value = record.fields.references[field]
                if (value === null || value === undefined) {
                    resolved[field] = null
                    continue
                }
                const names = Array.isArray(value) ? value : [value]
                const targets = names.map((name) => this.resolveReference(record, field, target, name))
                if (targets.includes(undefined)) {
                    broken = true
                    continue
                }
                resolved[field] = Array.isArray(value) ? (targets as CatalogItem[]) : targets[0]!
            }
            if (broken) continue
            this.items[type].set(record.name, { ...record, resolved, searchText: searchTextOf(record), usedBy: new Map() })
        }
    }

    private resolveReference(record: ItemRecord, field: string, target: ContentType, name: string) {
        const item = this.items[target].get(name)
        if (item) return item
        this.problems.push({
            file: record.file,
            ...record.locateReference(field),
            message: `${this.whyMissing(target, name)}; ${contentTypeInfos[record.type].type} "${record.name}" is left out`,
            severity: 'error',
        })
        return undefined
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

    /** A leaderboard record may name replays: they must exist, or the leaderboard is left out. */
    private leaderboardsWithReplays(record: ItemRecord) {
        return record.leaderboards.filter((leaderboard) => {
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

    private indexUsage() {
        // Sets while collecting: one engine may be used by every level, and an array scan per
        // level would make this quadratic.
        const users = new Map<CatalogItem, Map<ContentType, Set<CatalogItem>>>()
        for (const type of contentTypes) {
            for (const item of this.items[type].values()) {
                for (const target of Object.values(item.resolved).flat()) {
                    if (!target || target === item) continue
                    let byType = users.get(target)
                    if (!byType) users.set(target, (byType = new Map()))
                    let ofType = byType.get(type)
                    if (!ofType) byType.set(type, (ofType = new Set()))
                    ofType.add(item)
                }
            }
        }
        for (const [target, byType] of users) {
            for (const [type, items] of byType) target.usedBy.set(type, [...items].sort(newestFirst))
        }
    }

    private indexResources() {
        const banner = this.settings.banner
        if (banner && 'served' in banner) this.resources.set(banner.served.hash, banner.served)
        for (const type of contentTypes) {
            for (const item of this.items[type].values()) {
                for (const resource of Object.values(item.resources)) {
                    if ('served' in resource) this.resources.set(resource.served.hash, resource.served)
                }
            }
        }
    }

    private indexLocales() {
        const add = (text: LocalizedText | undefined) => {
            for (const locale of localesOf(text)) this.locales.add(locale)
        }
        add(this.settings.title)
        add(this.settings.description)
        for (const type of contentTypes) {
            for (const item of this.items[type].values()) {
                const { title, subtitle, artists, author, description, tags } = item.fields
                for (const text of [title, subtitle, artists, author, description, ...tags.map((tag) => tag.title)]) add(text)
            }
        }
    }
}

const resolutionOrder: ContentType[] = ['post', 'skin', 'background', 'effect', 'particle', 'engine', 'level', 'playlist', 'replay']

const searchTextOf = (record: ItemRecord) => {
    const { title, subtitle, artists, author, description, tags, rating } = record.fields
    const texts = [title, subtitle, artists, author, description, ...tags.map((tag) => tag.title)].flatMap(allVariants)
    return [record.name, ...texts, record.type === 'level' ? String(rating) : ''].join('\n').toLowerCase()
}
