import { distance } from 'fastest-levenshtein'
import { unitKeysOf, unitOf } from '../content/content-state.js'
import { contentTypeInfos, contentTypes, type ContentType } from '../content/item-types.js'
import type { ItemRecord, LeaderboardRecord, LoadedContent } from '../content/load.js'
import type { Problem } from '../content/problems.js'
import type { ReferenceValue } from '../content/records.js'
import { LayeredMap } from '../util/layered-map.js'

/** Resolved after the types they point at, so a reference always meets a finished type. */
const resolutionOrder: ContentType[] = [
    'post',
    'skin',
    'background',
    'effect',
    'particle',
    'engine',
    'level',
    'playlist',
    'replay',
]

/** The types whose items can point at each type, and the fields they do it with. */
export const referrers = new Map<ContentType, { type: ContentType; field: string }[]>(
    contentTypes.map((target) => [
        target,
        contentTypes.flatMap((type) =>
            contentTypeInfos[type].references
                .filter((reference) => reference.target === target)
                .map(({ field }) => ({ type, field })),
        ),
    ]),
)

export type ItemsByType = Record<ContentType, LayeredMap<string, ItemRecord>>

/** How one name of a type serves after an update: `before` and `after` differ, either may be absent. */
export type ItemChange = { before?: ItemRecord; after?: ItemRecord }

const byType = <T>(make: () => T) =>
    Object.fromEntries(contentTypes.map((type) => [type, make()])) as Record<ContentType, T>

/** The replays an item's leaderboards name. */
const replaysNamed = (item: ItemRecord) =>
    new Set(
        item.leaderboards.flatMap((leaderboard) =>
            leaderboard.records.flatMap((entry) => entry.replays),
        ),
    )

/**
 * Deletes a key unless there is none to delete: a first catalog decides a hundred thousand names
 * with nothing to forget, and a delete from an empty map still hashes its new key string.
 */
const forget = <K>(map: Map<K, unknown> | Set<K>, key: K) => {
    if (map.size) map.delete(key)
}

const keyOf = (record: ItemRecord) => `${record.type}/${record.name}`

const namesAny = (value: ReferenceValue | undefined, names: ReadonlySet<string>) =>
    typeof value === 'string'
        ? names.has(value)
        : Array.isArray(value) && value.some((name) => names.has(name))

/**
 * Decides which records serve: one record per name, no drafts (unless they are served), and only
 * items whose references all name items that serve. What it decided is kept from one snapshot to
 * the next, so an update decides again only the names a change touches, the items that point at
 * a name that stopped serving, and the items already left out for a reference to a changed type.
 */
export class Resolution {
    /** The items that serve, by type and name; a new version after every update. */
    items: ItemsByType = byType(() => LayeredMap.of())
    /** Leaderboards of an item that lost some to missing replays; a new map after every update. */
    leaderboards = new Map<ItemRecord, LeaderboardRecord[]>()

    /** Every unit's record as of the last update. */
    private units: ReadonlyMap<string, ItemRecord | null> = new Map()
    private fallbacks: ReadonlyMap<string, ItemRecord> = new Map()
    /** The one record per name that may serve, before its references are checked. */
    private readonly candidates = byType(() => new Map<string, ItemRecord>())
    private readonly drafts = byType(() => new Set<string>())
    /** Candidates left out for a reference to each type: their reason may change with that type. */
    private readonly brokenByTarget = byType(() => new Set<ItemRecord>())
    /**
     * Items serving their last good version because the new one names something that does not
     * serve, by `type/name`: what the old version names is checked again when that changes too.
     */
    private readonly keptLastGood = new Map<string, ItemRecord>()
    /** The items whose leaderboards name each replay, checked again when it comes or goes. */
    private readonly holdersByReplay = new Map<string, Set<ItemRecord>>()
    // Problems by `type/name`, so each is dropped when what it is about is decided again.
    private readonly duplicateProblems = new Map<string, Problem[]>()
    private readonly referenceProblems = new Map<string, Problem[]>()
    private readonly leaderboardProblems = new Map<string, Problem[]>()

    constructor(readonly servesDrafts: boolean) {}

    /** Takes in a new state of the folder, of which the `changed` units are new since the last update. */
    update(
        units: LoadedContent['units'],
        changed: Iterable<string>,
        fallbacks: LoadedContent['fallbacks'] = new Map(),
    ): Record<ContentType, ItemChange[]> {
        const dirty = byType(() => new Set<string>())
        for (const key of changed) {
            const { type, name } = unitOf(key)
            dirty[type].add(name)
            // A post folder named `x.md` holds the post "x.md", not "x": its record says which.
            const before = this.units.get(key)
            if (before) dirty[type].add(before.name)
            const after = units.get(key)
            if (after && after.name !== name) dirty[type].add(after.name)
        }
        this.units = units
        this.fallbacks = fallbacks
        this.items = { ...this.items }
        const changes = byType<ItemChange[]>(() => [])
        for (const type of resolutionOrder) {
            if (dirty[type].size === 0) continue
            const decided = new Map<string, ItemRecord | undefined>()
            const stopped = new Set<string>()
            for (const name of dirty[type]) {
                const before = this.items[type].get(name)
                const after = this.decide(type, name)
                if (before === after) continue
                decided.set(name, after)
                changes[type].push({ before, after })
                if (!after) stopped.add(name)
            }
            this.items[type] = this.items[type].with(decided)
            this.markReferrers(type, stopped, dirty)
        }
        this.updateLeaderboards(changes)
        return changes
    }

    /** Every problem the decisions found: names used twice, references to nothing, leaderboards naming missing replays. */
    problems(): Problem[] {
        return [this.duplicateProblems, this.referenceProblems, this.leaderboardProblems].flatMap(
            (problems) => [...problems.values()].flat(),
        )
    }

    /** Why no item of a type serves under a name, for a message about a reference to it. */
    whyMissing(target: ContentType, name: string) {
        const what = `${target} "${name}"`
        if (this.candidates[target].has(name) || this.isRejected(target, name))
            return `${what} has problems of its own (see above)`
        if (this.drafts[target].has(name))
            return `${what} is a draft (serve with --drafts to preview it)`
        const closest = this.closestName(target, name)
        const hint = !closest
            ? ''
            : closest.distance <= Math.max(2, name.length / 3)
              ? ` (did you mean "${closest.name}"?)`
              : ` (the closest name there is "${closest.name}")`
        return `${what} does not exist in ${contentTypeInfos[target].plural}/${hint}`
    }

    /** The name of a type's items closest to `name`; of equally close ones the first in order, so that how the items came does not matter. */
    private closestName(type: ContentType, name: string) {
        let closest: { name: string; distance: number } | undefined
        for (const candidate of this.items[type].keys()) {
            const apart = distance(name, candidate)
            if (
                !closest ||
                apart < closest.distance ||
                (apart === closest.distance && candidate < closest.name)
            )
                closest = { name: candidate, distance: apart }
        }
        return closest
    }

    /**
     * What serves under a name: the candidate when everything it names serves; otherwise the
     * version that served before its unit changed (its fallback), while everything that one
     * names serves, so a misspelt reference keeps the last good version serving as any other
     * broken edit does.
     */
    private decide(type: ContentType, name: string) {
        const key = `${type}/${name}`
        forget(this.keptLastGood, key)
        const candidate = this.decideCandidate(type, name, key)
        if (!candidate) return undefined
        const broken = this.brokenReferences(candidate)
        if (broken.length === 0) return candidate
        const fallback = unitKeysOf(type, name)
            .map((unit) => this.fallbacks.get(unit))
            .find((record) => record?.name === name && record !== candidate)
        const fallbackBroken = fallback ? this.brokenReferences(fallback) : []
        // Decided again when any type either names changes: the fallback may serve then, or stop.
        for (const { target } of [...broken, ...fallbackBroken])
            this.brokenByTarget[target].add(candidate)
        const kept = fallbackBroken.length === 0 ? fallback : undefined
        if (kept) this.keptLastGood.set(key, kept)
        // Worded as the content's own problems are (content-state.ts), whichever layer found them.
        const consequence = kept
            ? ' (the last good version keeps serving)'
            : `; ${type} "${name}" is left out`
        this.referenceProblems.set(
            key,
            broken.map(({ field, target, name: missing }) => ({
                file: candidate.file,
                ...candidate.locateReference(field),
                message: `${this.whyMissing(target, missing)}${consequence}`,
                severity: 'error',
            })),
        )
        return kept
    }

    /** The record that may serve under a name: the first one that is not a draft; the others are reported. */
    private decideCandidate(type: ContentType, name: string, key: string): ItemRecord | undefined {
        const previous = this.candidates[type].get(name)
        if (previous)
            for (const { target } of contentTypeInfos[type].references)
                this.brokenByTarget[target].delete(previous)
        forget(this.referenceProblems, key)
        // Loops rather than a chain of arrays: a first catalog decides a hundred thousand names.
        const serving: ItemRecord[] = []
        let drafts = false
        for (const unit of unitKeysOf(type, name)) {
            const record = this.units.get(unit)
            if (record?.name !== name) continue
            if (this.servesDrafts || !record.fields.draft) serving.push(record)
            else drafts = true
        }
        if (drafts) this.drafts[type].add(name)
        else forget(this.drafts[type], name)
        const candidate = serving[0]
        if (serving.length > 1) {
            this.duplicateProblems.set(
                key,
                serving.slice(1).map((record) => ({
                    file: record.file,
                    message: `the name "${name}" is already used by ${candidate!.file}: rename one of them`,
                    severity: 'error',
                })),
            )
        } else forget(this.duplicateProblems, key)
        if (candidate) this.candidates[type].set(name, candidate)
        else this.candidates[type].delete(name)
        return candidate
    }

    /** The references of a record that name no serving item. */
    private brokenReferences(record: ItemRecord) {
        const broken: { field: string; target: ContentType; name: string }[] = []
        for (const { field, target } of contentTypeInfos[record.type].references) {
            const value = record.fields.references[field]
            if (value === null || value === undefined) continue
            if (!Array.isArray(value)) {
                if (!this.items[target].has(value)) broken.push({ field, target, name: value })
                continue
            }
            for (const name of value)
                if (!this.items[target].has(name)) broken.push({ field, target, name })
        }
        return broken
    }

    /**
     * After a type is decided, the items of later types to decide again: those pointing at a
     * name that stopped serving, and those left out for a reference to the type (the name may
     * serve now, or the reason, or the suggestion, may have changed).
     */
    private markReferrers(
        type: ContentType,
        stopped: ReadonlySet<string>,
        dirty: Record<ContentType, Set<string>>,
    ) {
        for (const record of this.brokenByTarget[type]) dirty[record.type].add(record.name)
        if (stopped.size === 0) return
        for (const { type: referrer, field } of referrers.get(type)!) {
            for (const record of this.candidates[referrer].values())
                if (namesAny(record.fields.references[field], stopped))
                    dirty[referrer].add(record.name)
            for (const record of this.keptLastGood.values())
                if (record.type === referrer && namesAny(record.fields.references[field], stopped))
                    dirty[referrer].add(record.name)
        }
    }

    /** Checks the leaderboards of changed items, and of the items naming a replay that came or went. */
    private updateLeaderboards(changes: Record<ContentType, ItemChange[]>) {
        this.leaderboards = new Map(this.leaderboards)
        const toCheck = new Set<ItemRecord>()
        for (const type of contentTypes) {
            for (const { before, after } of changes[type]) {
                if (before) this.forgetLeaderboards(before)
                if (after?.leaderboards.length) toCheck.add(after)
            }
        }
        for (const { before, after } of changes.replay)
            if (!before || !after)
                for (const holder of this.holdersByReplay.get((before ?? after)!.name) ?? [])
                    toCheck.add(holder)
        for (const item of toCheck) this.checkLeaderboards(item)
    }

    private forgetLeaderboards(item: ItemRecord) {
        for (const name of replaysNamed(item)) {
            const holders = this.holdersByReplay.get(name)
            holders?.delete(item)
            if (holders?.size === 0) this.holdersByReplay.delete(name)
        }
        this.leaderboards.delete(item)
        this.leaderboardProblems.delete(keyOf(item))
    }

    /** A leaderboard record may name replays: they must exist, or the leaderboard is left out. */
    private checkLeaderboards(item: ItemRecord) {
        this.forgetLeaderboards(item)
        const problems: Problem[] = []
        const valid = item.leaderboards.filter((leaderboard) => {
            const missing = leaderboard.records.flatMap((entry, index) =>
                entry.replays
                    .filter((name) => !this.items.replay.has(name))
                    .map((name) => ({ index, name })),
            )
            for (const { index, name } of missing) {
                problems.push({
                    file: leaderboard.file,
                    field: `records[${index}].replays`,
                    message: `replay "${name}" does not exist; leaderboard "${leaderboard.name}" is left out`,
                    severity: 'error',
                })
            }
            return missing.length === 0
        })
        for (const name of replaysNamed(item)) {
            const holders = this.holdersByReplay.get(name)
            if (holders) holders.add(item)
            else this.holdersByReplay.set(name, new Set([item]))
        }
        if (valid.length !== item.leaderboards.length) this.leaderboards.set(item, valid)
        if (problems.length) this.leaderboardProblems.set(keyOf(item), problems)
    }

    /** A unit holding this name is there but has nothing to serve, for its own problems. */
    private isRejected(type: ContentType, name: string) {
        return unitKeysOf(type, name).some(
            (key) => this.units.get(key) === null && unitOf(key).name === name,
        )
    }
}
