import { LayeredMap } from '../util/layered-map.js'
import { contentTypeInfos, contentTypes, type ContentType } from './item-types.js'
import {
    concurrency,
    FolderLoader,
    partFolders,
    withParts,
    type ItemParts,
    type ItemRecord,
    type LoadedContent,
    type LoadedUnit,
    type LoadTools,
    type PartChanges,
    type PartFolder,
} from './load.js'
import type { Problem } from './problems.js'
import { neutralServerSettings, type ServerSettings } from './server-settings.js'
import { mapLimit } from '../util/map-limit.js'
import type { SnapshotUnit, StartSnapshot } from './start-snapshot.js'

/** One entry of a type folder (`levels/first-steps`, `posts/welcome.md`) and what reading it gave. */
type Unit = {
    type: ContentType
    /** The record now on disk; absent when the entry has problems. */
    record?: ItemRecord
    /** The last record that loaded, kept serving while the entry on disk is broken. */
    lastGood?: ItemRecord
    /** What served under the unit's name when it last changed (see LoadedContent.fallbacks). */
    fallback?: ItemRecord
    /** A level's chart: the engine whose package converts it, so that a change of the engine converts it again. */
    chartEngine?: string
    /** While the record serves: its comments and leaderboards file by file, which a change of a few of them patches. */
    parts?: ItemParts
    /** The problems of the entry but for those of its parts' files. */
    ownProblems?: Problem[]
}

/** The parts of the folder a batch of changed paths touches; each unit with the paths changed in it. */
export type AffectedParts = {
    settings: boolean
    types: Set<ContentType>
    units: Map<string, string[]>
}

const settingsFiles = /^(server\.ya?ml|info\.json|banner(\.[a-z]+)?)$/
const typeByPlural = new Map<string, ContentType>(
    contentTypes.map((type) => [contentTypeInfos[type].plural, type]),
)

/** Which parts of the folder a changed path (relative, `/`-separated) belongs to. */
export const affectedParts = (paths: Iterable<string>): AffectedParts => {
    const parts: AffectedParts = { settings: false, types: new Set(), units: new Map() }
    for (const path of paths) {
        const [first, second] = path.split('/')
        if (second === undefined && first !== undefined && settingsFiles.test(first))
            parts.settings = true
        const type = first === undefined ? undefined : typeByPlural.get(first)
        if (!type) continue
        // The defaults touch every item of the type; so does the type folder itself appearing or going.
        if (second === undefined || second === '_defaults.yaml') parts.types.add(type)
        else {
            const key = unitKeyOfPath(path)
            const paths = parts.units.get(key)
            if (paths) paths.push(path)
            else parts.units.set(key, [path])
        }
    }
    return parts
}

/**
 * What changed inside an item folder (not the folder itself): which files of its comments and
 * leaderboards, all of a part whose folder itself changed, and whether anything else did.
 */
const changesInside = (key: string, paths: readonly string[]) => {
    const parts: Partial<Record<PartFolder, string[] | 'all'>> = {}
    let rest = false
    for (const path of paths) {
        const [folder, file, deeper] = path.slice(key.length + 1).split('/')
        const part = partFolders.find((name) => name === folder)
        if (!part) rest = true
        // A folder inside a part folder holds nothing the item serves.
        else if (deeper !== undefined) continue
        else if (file === undefined) parts[part] = 'all'
        else if (parts[part] !== 'all') parts[part] = [...(parts[part] ?? []), file]
    }
    return { parts: parts as PartChanges, rest }
}

/**
 * The key of the unit a path (relative, `/`-separated) is in: its type folder and entry, so
 * `levels/x/comments/c.md` is in `levels/x` and `posts/x.md` is its own unit.
 */
export const unitKeyOfPath = (path: string) => path.split('/').slice(0, 2).join('/')

/** The type and item name of a unit key (`posts/welcome.md` is the post "welcome"). */
export const unitOf = (key: string): { type: ContentType; name: string } => {
    const slash = key.indexOf('/')
    const type = typeByPlural.get(key.slice(0, slash))!
    return { type, name: unitName(type, key.slice(slash + 1)) }
}

/** The keys of the units that can hold the item `name` of a type: a post may be a folder or one file. */
export const unitKeysOf = (type: ContentType, name: string): string[] => {
    const folder = `${contentTypeInfos[type].plural}/${name}`
    return type === 'post' ? [folder, `${folder}.md`] : [folder]
}

/**
 * Everything read from the content folder, kept per part so that a change re-reads only what it
 * touches. A part that breaks keeps serving its last good version, with its problems reported.
 */
export class ContentState {
    private settings: { value: ServerSettings; problems: Problem[] } | undefined
    private readonly defaults = new Map<
        ContentType,
        { data: Record<string, unknown>; problems: Problem[] }
    >()
    private readonly units = new Map<string, Unit>()
    /** The problems of the units that have some, so a snapshot gathers them without a pass over every unit. */
    private readonly unitProblems = new Map<string, Problem[]>()
    /** What each unit served in the last snapshot; the next one is made from it and `changed`. */
    private served = LayeredMap.of<string, ItemRecord | null>()
    private fallbacks = LayeredMap.of<string, ItemRecord>()
    /** What the catalog serves under a unit's name now; told by whoever builds the catalogs. */
    servedItem: (key: string) => ItemRecord | undefined = () => undefined
    private changed = new Set<string>()
    private version = 0

    constructor(
        private readonly root: string,
        private readonly tools: LoadTools,
    ) {}

    /** Reads the whole folder; the items a start snapshot shows unchanged are taken from it. */
    async loadAll(snapshot?: StartSnapshot) {
        await this.reloadSettings()
        for (const type of enginesFirst(contentTypes)) await this.reloadType(type, snapshot)
    }

    /**
     * Reads again, as at a first read, units taken from a start snapshot whose folders changed:
     * what they were taken as neither serves on while broken nor is kept for a new record.
     */
    async readAgain(keys: readonly string[]) {
        for (const key of keys) this.forget(key)
        await this.reload(keys)
    }

    /** The units a start snapshot may keep: item folders whose record serves, read from their own files alone. */
    *snapshotUnits(): Generator<SnapshotUnit> {
        for (const [key, unit] of this.units)
            if (
                unit.record &&
                !unit.parts &&
                unit.chartEngine === undefined &&
                !unit.record.enginePackage
            )
                yield { key, record: unit.record, problems: unit.ownProblems }
    }

    /** Each type's defaults as read. */
    typeDefaults() {
        return Object.fromEntries(
            [...this.defaults].map(([type, { data }]) => [type, data]),
        ) as Partial<Record<ContentType, Record<string, unknown>>>
    }

    /** Re-reads the parts that the changed paths belong to. */
    async reload(paths: Iterable<string>) {
        const parts = affectedParts(paths)
        if (parts.settings) await this.reloadSettings()
        for (const type of enginesFirst([...parts.types])) await this.reloadType(type)
        const units = [...parts.units].filter(
            ([key]) => !parts.types.has(typeByPlural.get(key.split('/')[0]!)!),
        )
        // Engines first: a level's chart is converted by its engine's package.
        const engines = units.filter(([key]) => key.startsWith('engines/'))
        await mapLimit(engines, concurrency, ([key, changed]) =>
            this.reloadUnit(key, undefined, changed),
        )
        const others = new Map<string, string[] | undefined>(
            units.filter(([key]) => !key.startsWith('engines/')),
        )
        if (!parts.types.has('level'))
            for (const key of this.chartsConvertedBy(
                parts.types.has('engine') ? undefined : engines.map(([key]) => key),
            ))
                if (!others.has(key)) others.set(key, undefined)
        await mapLimit([...others], concurrency, ([key, changed]) =>
            this.reloadUnit(key, undefined, changed),
        )
        return parts
    }

    /**
     * The levels whose chart the package of one of these engines (`engines/x` keys; every engine
     * when undefined) converted: an engine's change may change its package, so they convert again.
     */
    private chartsConvertedBy(engines: string[] | undefined) {
        if (engines?.length === 0) return []
        const names = engines && new Set(engines.map((key) => unitOf(key).name))
        const levels: string[] = []
        for (const [key, unit] of this.units) {
            if (unit.chartEngine !== undefined && (!names || names.has(unit.chartEngine)))
                levels.push(key)
        }
        return levels
    }

    /** The folder as it is now; costs as much as what changed since the last snapshot. */
    snapshot(): LoadedContent {
        const changes = new Map<string, ItemRecord | null | undefined>()
        const fallbacks = new Map<string, ItemRecord | undefined>()
        for (const key of this.changed) {
            const unit = this.units.get(key)
            changes.set(key, unit ? (unit.record ?? unit.lastGood ?? null) : undefined)
            // Only a fallback set or taken away: a first snapshot's 100,000 units have none.
            if (unit?.fallback || this.fallbacks.has(key)) fallbacks.set(key, unit?.fallback)
        }
        this.served = this.served.with(changes)
        this.fallbacks = this.fallbacks.with(fallbacks)
        const problems = [...(this.settings?.problems ?? [])]
        for (const { problems: defaultsProblems } of this.defaults.values())
            problems.push(...defaultsProblems)
        for (const unitProblems of this.unitProblems.values()) problems.push(...unitProblems)
        const changed = this.changed
        this.changed = new Set()
        return {
            settings: this.settings!.value,
            units: this.served,
            problems,
            version: ++this.version,
            changed,
            fallbacks: this.fallbacks,
        }
    }

    /** Broken settings keep the last good ones serving, as a broken item does; at the first load there are none, and a neutral title serves. */
    private async reloadSettings() {
        const loader = this.loader()
        const value = await loader.loadSettings()
        const lastGood = this.settings?.value
        if (value || !lastGood)
            this.settings = { value: value ?? neutralServerSettings(), problems: loader.problems }
        else this.settings = { value: lastGood, problems: loader.problems.map(keepsServing) }
    }

    private async reloadType(type: ContentType, snapshot?: StartSnapshot) {
        // One loader for the type folder itself: its listing's problems stay with its defaults'.
        const loader = this.loader()
        const data = await loader.loadDefaults(type)
        const plural = contentTypeInfos[type].plural
        // By name: a key made of each (a new string to hash) cost a warm start at 100,000 levels a tenth of a second.
        const entries = new Map(
            (await loader.listUnits(type)).map(({ name, folder }) => [name, folder]),
        )
        // At the first read no unit is of this type yet: not a walk over every unit of the others (100,000 levels) for each type.
        const readBefore = this.defaults.has(type)
        this.defaults.set(type, { data, problems: loader.problems })
        if (readBefore)
            for (const [key, unit] of this.units)
                if (unit.type === type && !entries.has(key.slice(plural.length + 1)))
                    this.forget(key)
        const taken = (await snapshot?.take(type, data, (name) => entries.get(name) === true)) ?? []
        for (const { key, record, problems } of taken) {
            this.units.set(key, { type, record, ownProblems: problems })
            if (problems) this.unitProblems.set(key, problems)
            this.changed.add(key)
        }
        // Each listed entry is taken at most once: when all were, there is nothing to read.
        const takenNames =
            taken.length < entries.size && new Set(taken.map(({ record }) => record.name))
        const unread: [string, boolean][] = takenNames
            ? [...entries]
                  .filter(([name]) => !takenNames.has(name))
                  .map(([name, folder]) => [`${plural}/${name}`, folder])
            : []
        await mapLimit(unread, concurrency, ([key, folder]) => this.reloadUnit(key, folder))
    }

    /**
     * Reads one unit again; `folder` says whether it is a folder, when a listing just said so.
     * Given the paths that changed in it, an item folder reads only what they touch: the changed
     * files of its comments and leaderboards alone, and the rest of the item only when something
     * else changed, its other comments and leaderboards kept as they were.
     */
    private async reloadUnit(key: string, folder?: boolean, paths?: readonly string[]) {
        const { type } = unitOf(key)
        const previous = this.units.get(key)
        const loader = this.loader()
        const kept =
            previous?.record && previous.parts && paths && !paths.includes(key)
                ? previous.parts
                : undefined
        const changes = kept && changesInside(key, paths!)
        let loaded: LoadedUnit | undefined
        let ownProblems: Problem[] | undefined = loader.problems
        if (kept && changes && !changes.rest) {
            for (const [part, files] of Object.entries(changes.parts) as [
                PartFolder,
                readonly string[] | 'all',
            ][])
                await loader.readPart(kept, part, key, files)
            loaded = { record: withParts(previous!.record!, kept), parts: kept }
            ownProblems = previous!.ownProblems
        } else {
            const defaults = this.defaults.get(type)?.data ?? {}
            loaded = await loader.loadUnit(
                type,
                key.slice(key.indexOf('/') + 1),
                defaults,
                folder,
                kept && changes && { parts: kept, changes: changes.parts },
            )
        }
        const record = loaded?.record
        if (!record && loader.problems.length === 0) {
            // Gone from disk, or never an item (a stray file): nothing to serve or report.
            this.forget(key)
            return
        }
        const lastGood = record ?? previous?.record ?? previous?.lastGood
        const own =
            record || !lastGood
                ? (ownProblems ?? [])
                : loader.problems.map((problem) => keepsServing(problem))
        const problems = loaded?.parts
            ? [...own, ...loaded.parts.comments.problems(), ...loaded.parts.leaderboards.problems()]
            : own
        const served = this.servedItem(key)
        this.units.set(key, {
            type,
            record,
            lastGood: record ? undefined : lastGood,
            fallback: served && unitKeyOfPath(served.file) === key ? served : undefined,
            parts: loaded?.parts,
            ownProblems: own.length ? own : undefined,
            chartEngine: loader.chartEngine,
        })
        if (problems.length) this.unitProblems.set(key, problems)
        else this.unitProblems.delete(key)
        this.changed.add(key)
    }

    private forget(key: string) {
        if (!this.units.delete(key)) return
        this.unitProblems.delete(key)
        this.changed.add(key)
    }

    private loader() {
        return new FolderLoader(this.root, { ...this.tools, engineOf: (name) => this.engine(name) })
    }

    /** An engine as served now: its last good version while its files are broken. */
    private engine(name: string) {
        const unit = this.units.get(`${contentTypeInfos.engine.plural}/${name}`)
        return unit?.record ?? unit?.lastGood
    }
}

/** A level's chart is converted by its engine's package: engines are read before the other types. */
const enginesFirst = (types: readonly ContentType[]) =>
    [...types].sort((a, b) => Number(b === 'engine') - Number(a === 'engine'))

const unitName = (type: ContentType, entry: string) =>
    type === 'post' && entry.endsWith('.md') ? entry.slice(0, -3) : entry

const keepsServing = (problem: Problem): Problem =>
    problem.severity === 'error'
        ? { ...problem, message: `${problem.message} (the last good version keeps serving)` }
        : problem
