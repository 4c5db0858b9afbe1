// Records and folder listings are small, and Node's synchronous calls for them cost a fraction
// of the promise versions' bookkeeping: at a hundred thousand items that is most of start-up.
import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { TurnSlices } from '../util/turn-slices.js'
import { commentFromFile, commentOrder, type CommentRecord } from './comment-file.js'
import { chartFormatOfFile, type ChartFormat } from '../charts/chart-formats.js'
import type { EnginePackage } from '../charts/engine-packages.js'
import {
    convertedChart,
    packageResources,
    packagedEngineRecord,
    type ChartTools,
} from './chart-resources.js'
import { contentTypeInfos, type ContentType, type ResourceKind } from './item-types.js'
import { outsideProblem, type Containment, type EntryKind } from './containment.js'
import { listFolder, type FolderListing } from './folder-listing.js'
import { isIgnored } from './ignored-names.js'
import { isWriteLeftover } from '../util/write-leftovers.js'
import { FileRecords, type FileOutcome } from './file-records.js'
import { parseRecordFile, type ParsedFile } from './parse-file.js'
import type { StartParseCache } from './start-parse-cache.js'
import { maxLeaderboardBytes, maxRecordBytes, readTextFile } from './read-text.js'
import { ContentError, type Problem } from './problems.js'
import { normalizeFields, type ItemFields } from './records.js'
import { candidateFiles, type Resource, type ResourceProcessor } from './resources.js'
import {
    neutralServerSettings,
    normalizeServerSettings,
    type ServerSettings,
} from './server-settings.js'
import { checkSettings } from './settings-checks.js'
import type { LocalizedText } from './text.js'
import type { SchemaName } from './schemas.js'
import { formatFieldPath, type ContentValidator, type SchemaIssue } from './validate.js'

export type LeaderboardEntryRecord = {
    name: string
    rank: string
    player: string
    value: string
    replays: string[]
}

export type LeaderboardRecord = {
    name: string
    file: string
    title: LocalizedText
    description?: LocalizedText
    records: LeaderboardEntryRecord[]
}

/** One item as the folder describes it, before references to other items are resolved. */
export type ItemRecord = {
    type: ContentType
    name: string
    /** The record file, relative to the content folder. */
    file: string
    fields: ItemFields
    /** Where a reference field was written, so a broken reference can name its line. */
    locateReference(
        field: string,
    ): Omit<Problem, 'message' | 'severity' | 'file'> & { file?: string }
    resources: Record<string, Resource>
    comments: CommentRecord[]
    leaderboards: LeaderboardRecord[]
    /** An engine naming an npm package (`package:`): the package gives its files and converts its levels' charts. */
    enginePackage?: EnginePackage
}

/** The subfolders of an item whose files are records of their own, each read alone when it changes. */
export const partFolders = ['comments', 'leaderboards'] as const
export type PartFolder = (typeof partFolders)[number]

/** An item folder's comments and leaderboards, file by file: what a change of one of them patches. */
export type ItemParts = {
    comments: FileRecords<CommentRecord>
    leaderboards: FileRecords<LeaderboardRecord>
}

/** Which of an item folder's part files changed: some by name, or `all` when the folder itself did. */
export type PartChanges = Partial<Record<PartFolder, readonly string[] | 'all'>>

/** A unit's record and, for an item folder, its parts. */
export type LoadedUnit = { record: ItemRecord; parts?: ItemParts }

const leaderboardOrder = (a: LeaderboardRecord, b: LeaderboardRecord) =>
    a.name < b.name ? -1 : a.name > b.name ? 1 : a.file < b.file ? -1 : a.file > b.file ? 1 : 0

const newItemParts = (): ItemParts => ({
    comments: new FileRecords(commentOrder),
    leaderboards: new FileRecords(leaderboardOrder),
})

/** The record with its parts as they are now: a new record, the one before left as it was. */
export const withParts = (record: ItemRecord, parts: ItemParts): ItemRecord => ({
    ...record,
    comments: parts.comments.sorted as CommentRecord[],
    leaderboards: parts.leaderboards.sorted as LeaderboardRecord[],
})

const isCommentFile = (name: string) => name.endsWith('.md') && !isIgnored(name)
const isLeaderboardFile = (name: string) => /\.(ya?ml|json)$/.test(name) && !isIgnored(name)

/**
 * One state of the whole folder. Each entry of a type folder is a unit, keyed by its path
 * (`levels/first-steps`, `posts/welcome.md`), and serves a record, or null when its own problems
 * leave nothing to serve (references to it can then say why). Consecutive states are numbered and
 * say which units changed between them, so the catalog can redo only what they touch.
 */
export type LoadedContent = {
    settings: ServerSettings
    units: ReadonlyMap<string, ItemRecord | null>
    problems: Problem[]
    version: number
    /** The units that changed since the state numbered `version - 1`, each of them set or gone from `units`. */
    changed: ReadonlySet<string>
    /**
     * For a unit whose record changed while an item of it served: that item, which keeps serving
     * while the new record names items that do not serve (a misspelt skin). Part of the state, so
     * a catalog built from scratch decides as one built change by change.
     */
    fallbacks?: ReadonlyMap<string, ItemRecord>
}

/** An entry of a type folder that may be an item, and whether it is a folder. */
export type UnitEntry = { name: string; folder: boolean }

export type LoadTools = {
    validator: ContentValidator
    processor: ResourceProcessor
    /** Which links may be followed: those that stay inside the content folder. */
    containment: Containment
    /** Engines from npm packages and charts as level data. */
    charts: ChartTools
    /** Parses record files, from what the last start parsed while this one loads. */
    parseCache: StartParseCache
    /** An engine as the folder serves it now, for the package that converts a level's chart. */
    engineOf?: (name: string) => ItemRecord | undefined
    /** Told of each leftover of a write cut short that a listing finds (its path), for the start's sweep. */
    noticeLeftover?: (path: string) => void
}

/** A listed entry of a folder, a link taken for what it points at. */
type Entry = { name: string; kind: EntryKind }

const safeName = /^(?![._])[A-Za-z0-9._~-]+$/
/** Item names that would be shadowed by the protocol's fixed routes. */
const reservedItemNames = new Set(['info', 'list', 'create', 'upload'])
const recordFileNames = ['item.json', 'item.yaml', 'item.yml', 'item.md']
const defaultsFileName = '_defaults.yaml'
/**
 * Items read at once: enough that the resource files they ask for at the same time make batches
 * for a worker thread (resource-batches.ts) while the main thread reads on, without exhausting
 * file descriptors (the few large files are read asynchronously).
 */
export const concurrency = 128

export const isSafeName = (name: string) => safeName.test(name)

/**
 * Reads parts of a content folder: the settings, a type's defaults, one item. Each loader gathers
 * the problems of what it read, so a caller can keep them with the part they belong to.
 */
export class FolderLoader {
    readonly problems: Problem[] = []
    /** The engine whose package a level's chart was given to, converted or not. */
    chartEngine: string | undefined

    constructor(
        private readonly root: string,
        private readonly tools: LoadTools,
    ) {}

    /** The settings; undefined when their file is there but cannot be used (broken YAML, a wrong type). */
    async loadSettings(): Promise<ServerSettings | undefined> {
        const entries = await this.list('')
        const names = new Set(
            entries.filter((entry) => entry.kind === 'file').map((entry) => entry.name),
        )
        const file = ['server.yaml', 'server.yml', 'info.json'].find((name) => names.has(name))
        if (file !== 'info.json' && names.has('info.json')) {
            this.problems.push({
                file: 'info.json',
                message: `ignored: ${file} is used instead`,
                severity: 'warning',
            })
        }
        // A folder without settings still serves, under a neutral title.
        const record = file
            ? this.readRecord(file, file === 'info.json' ? 'info' : 'server')
            : undefined
        if (file && !record) return undefined
        if (record && file) {
            this.problems.push(
                ...checkSettings(record.data).map((issue) => ({
                    ...this.issueProblem(file, record.parsed, issue),
                    severity: 'warning' as const,
                })),
            )
        }
        const settings = record
            ? normalizeServerSettings(record.data, file)
            : neutralServerSettings()
        settings.banner = await this.findResource('', names, 'banner', 'image')
        return settings
    }

    /** The `_defaults.yaml` of a type folder, or nothing when it is absent or broken. */
    async loadDefaults(type: ContentType): Promise<Record<string, unknown>> {
        const file = `${contentTypeInfos[type].plural}/${defaultsFileName}`
        if (this.kindAt(file) !== 'file') return {}
        return this.readRecord(file, type, true)?.data ?? {}
    }

    /** The entries of a type folder that may be items: item folders, and `.md` files for posts. */
    async listUnits(type: ContentType): Promise<UnitEntry[]> {
        const plural = contentTypeInfos[type].plural
        // The type folder is reached without a listing, so its own kind is looked up.
        const kind = this.kindAt(plural)
        if (kind !== 'folder') return []
        const entries = await this.list(plural)
        return entries
            .filter((entry) => !isIgnored(entry.name) && entry.name !== defaultsFileName)
            .filter(
                (entry) =>
                    entry.kind === 'folder' ||
                    (type === 'post' && entry.kind === 'file' && entry.name.endsWith('.md')),
            )
            .map((entry) => ({ name: entry.name, folder: entry.kind === 'folder' }))
    }

    /**
     * One entry of a type folder as an item; undefined when it is gone, is no item, or has
     * problems. Whether it is a folder is looked up unless the listing that found it said so.
     * `kept` are the parts of the item as last read and which of their files changed since:
     * the others are not read again.
     */
    async loadUnit(
        type: ContentType,
        entry: string,
        defaults: Record<string, unknown>,
        folder?: boolean,
        kept?: { parts: ItemParts; changes: PartChanges },
    ): Promise<LoadedUnit | undefined> {
        const plural = contentTypeInfos[type].plural
        const kind = folder === undefined ? this.kindAt(`${plural}/${entry}`) : undefined
        // Neither a folder nor a file (gone, a socket, a link outside): no item.
        const isFolder = folder ?? (kind === 'folder' ? true : kind === 'file' ? false : undefined)
        if (isFolder === undefined) return undefined
        if (isFolder) return this.loadItemFolder(type, `${plural}/${entry}`, entry, defaults, kept)
        if (type === 'post' && entry.endsWith('.md')) {
            const record = await this.loadItem(
                type,
                entry.slice(0, -3),
                `${plural}/${entry}`,
                defaults,
            )
            return record && { record }
        }
        return undefined
    }

    private async loadItemFolder(
        type: ContentType,
        folder: string,
        name: string,
        defaults: Record<string, unknown>,
        kept?: { parts: ItemParts; changes: PartChanges },
    ): Promise<LoadedUnit | undefined> {
        // Its listing may be remembered: a cache to be read whole is read a piece at a time, not at once in a reload.
        await this.tools.processor.hashes.loaded()
        const listing = this.listItemFolder(folder)
        const names = new Set(listing.files)
        const recordFiles = recordFileNames.filter((file) => names.has(file))
        if (recordFiles.length === 0) {
            this.problems.push({
                file: folder,
                message: `no record file: add one of ${recordFileNames.join(', ')}`,
                severity: 'error',
            })
            return undefined
        }
        if (recordFiles.length > 1) {
            this.problems.push({
                file: folder,
                message: `more than one record file (${recordFiles.join(', ')}): keep one`,
                severity: 'error',
            })
            return undefined
        }
        const file = `${folder}/${recordFiles[0]}`
        const item = await this.loadItem(type, name, file, defaults)
        // Looked for even when the record is broken, so that one run reports every mistake.
        const resources = await this.findResources(type, folder, names, item)
        if (item?.enginePackage)
            Object.assign(
                resources,
                await packageResources(this.tools.processor, item.enginePackage, resources),
            )
        if (!this.hasAllResources(type, folder, file, resources) || !item) return undefined
        item.resources = resources
        const present = partFolders.filter((part) => listing.folders.includes(part))
        // Parts are kept only where there are some: a hundred thousand levels without comments would keep 200,000 empty ones.
        if (!kept && present.length === 0) return { record: item }
        const parts = kept?.parts ?? newItemParts()
        for (const part of partFolders) {
            const changed = kept ? kept.changes[part] : 'all'
            // A part folder gone empties what was kept of it.
            if (!present.includes(part)) {
                if (kept) await this.readPart(parts, part, folder, 'all')
            } else if (changed) await this.readPart(parts, part, folder, changed)
        }
        return { record: withParts(item, parts), parts: present.length ? parts : undefined }
    }

    /**
     * Reads files of an item's part folder into its parts: those named, or every file there
     * (`all`), forgetting the files no longer listed. Each file's problems stay with it.
     */
    async readPart(
        parts: ItemParts,
        part: PartFolder,
        itemFolder: string,
        files: readonly string[] | 'all',
    ) {
        const folder = `${itemFolder}/${part}`
        if (part === 'comments')
            await this.readFiles(
                parts.comments,
                folder,
                isCommentFile,
                files,
                (loader, file, name) => loader.readComment(file, name),
            )
        else
            await this.readFiles(
                parts.leaderboards,
                folder,
                isLeaderboardFile,
                files,
                (loader, file, name) => loader.readLeaderboard(file, name),
            )
    }

    private async readFiles<T>(
        records: FileRecords<T>,
        folder: string,
        accepts: (name: string) => boolean,
        files: readonly string[] | 'all',
        read: (loader: FolderLoader, file: string, name: string) => T | undefined,
    ) {
        const outcomes: FileOutcome<T>[] = []
        let names = files
        if (names === 'all') {
            // The listing's own problems (links leading outside) are kept under the folder's empty name.
            const lister = new FolderLoader(this.root, this.tools)
            const listed = (await lister.list(folder))
                .filter((entry) => entry.kind === 'file' && accepts(entry.name))
                .map((entry) => entry.name)
            const present = new Set(listed)
            outcomes.push({ file: '', problems: lister.problems })
            for (const known of records.files())
                if (known !== '' && !present.has(known))
                    outcomes.push({ file: known, problems: [] })
            names = listed
        }
        // Reading thousands of comments is no reason for requests to wait for all of them.
        const slices = new TurnSlices()
        for (const name of names) {
            if (slices.due()) await slices.pause()
            const file = `${folder}/${name}`
            const loader = new FolderLoader(this.root, this.tools)
            const isFile = files === 'all' || (accepts(name) && loader.kindAt(file) === 'file')
            const value = isFile ? read(loader, file, name) : undefined
            outcomes.push({ file: name, value, problems: loader.problems })
        }
        records.update(outcomes)
    }

    private async loadItem(
        type: ContentType,
        name: string,
        file: string,
        defaults: Record<string, unknown>,
    ): Promise<ItemRecord | undefined> {
        if (!isSafeName(name) || reservedItemNames.has(name)) {
            this.problems.push({ file, message: nameProblem(name, 'item'), severity: 'error' })
            return undefined
        }
        const record = this.readRecord(file, type, false, defaults, (data, parsed) =>
            this.reportReferences(type, file, data, parsed),
        )
        if (!record) return undefined
        const packaged =
            type === 'engine' && record.data.package !== undefined
                ? await this.packagedEngine(file, record)
                : undefined
        if (packaged === null) return undefined
        const locateReference = referenceLocator(type, this.root, file, record.parsed)
        const fields = normalizeFields(type, packaged?.data ?? record.data)
        return {
            type,
            name,
            file,
            fields,
            locateReference,
            resources: {},
            comments: [],
            leaderboards: [],
            enginePackage: packaged?.pack,
        }
    }

    /** The names a record that failed validation gives in its reference fields, for the catalog to check too. */
    private reportReferences(
        type: ContentType,
        file: string,
        data: Record<string, unknown>,
        parsed: ParsedFile,
    ) {
        for (const { field, target } of contentTypeInfos[type].references) {
            for (const name of namesIn(data[field])) {
                this.problems.push({
                    ...locateField(file, parsed, field),
                    message: '',
                    severity: 'error',
                    reference: { type: target, name },
                })
            }
        }
    }

    /** An engine record naming a package, with the package; null when that cannot be had (reported). */
    private async packagedEngine(
        file: string,
        record: { data: Record<string, unknown>; parsed: ParsedFile },
    ) {
        try {
            return await packagedEngineRecord(this.tools.charts, record.data)
        } catch (error) {
            const field =
                error instanceof ContentError && error.position.field === 'title'
                    ? 'title'
                    : 'package'
            this.problems.push({
                file,
                ...record.parsed.locate([field]),
                field,
                message: (error as Error).message,
                severity: 'error',
            })
            return null
        }
    }

    /**
     * A level's chart is converted by its engine's package only when its record loaded (`item`).
     * The files are asked for together, each by a loader of its own whose problems are taken in
     * the roles' order: an item waits for one round trip to the thread reading its files, not
     * one per file, and a first start keeps that thread fed (asked one after the other, it
     * waited for the main thread 40% of a 10,000-level start).
     */
    private async findResources(
        type: ContentType,
        folder: string,
        names: Set<string>,
        item: ItemRecord | undefined,
    ) {
        const found = await Promise.all(
            contentTypeInfos[type].resources.map(async ({ role, kind }) => {
                const loader = new FolderLoader(this.root, this.tools)
                const resource = await loader.findResource(folder, names, role, kind, item)
                return { role, resource, loader }
            }),
        )
        const resources: Record<string, Resource> = {}
        for (const { role, resource, loader } of found) {
            this.problems.push(...loader.problems)
            this.chartEngine ??= loader.chartEngine
            if (resource) resources[role] = resource
        }
        return resources
    }

    private hasAllResources(
        type: ContentType,
        folder: string,
        file: string,
        resources: Record<string, Resource>,
    ) {
        const missing = contentTypeInfos[type].resources.filter(
            ({ role, optional }) => !optional && !resources[role],
        )
        for (const { role, kind } of missing) {
            this.problems.push({
                file,
                field: role,
                message: `missing resource "${role}": add ${candidateFiles(role, kind).slice(2).join(', ')} (or ${role}.srl) to ${folder}`,
                severity: 'error',
            })
        }
        return missing.length === 0
    }

    private async findResource(
        folder: string,
        names: Set<string>,
        role: string,
        kind: ResourceKind,
        item?: ItemRecord,
    ) {
        const [fileName, ...unused] = candidateFiles(role, kind).filter((candidate) =>
            names.has(candidate),
        )
        if (!fileName) return undefined
        const file = folder ? `${folder}/${fileName}` : fileName
        // A chart saved beside the data it was meant to replace would otherwise change nothing, silently.
        if (kind === 'levelData')
            for (const name of unused)
                this.problems.push({
                    file: `${folder}/${name}`,
                    message: `not used: ${fileName} holds the level's data (remove one of them)`,
                    severity: 'warning',
                })
        try {
            if (fileName.endsWith('.srl')) {
                const parsed = this.readRecord(file, undefined)
                return parsed ? ({ external: parsed.data } as Resource) : undefined
            }
            const chart = kind === 'levelData' ? chartFormatOfFile(fileName) : undefined
            if (chart && item)
                return {
                    served: await this.convertChart(item, join(this.root, file), chart),
                } satisfies Resource
            return {
                served: await this.tools.processor.process(join(this.root, file), fileName),
            } satisfies Resource
        } catch (error) {
            this.reportFileError(file, error)
            return undefined
        }
    }

    private async convertChart(level: ItemRecord, path: string, format: ChartFormat) {
        const engineName = String(level.fields.references.engine)
        this.chartEngine = engineName
        return convertedChart(
            this.tools.charts,
            this.tools.processor,
            engineName,
            this.tools.engineOf?.(engineName),
            path,
            format,
        )
    }

    private readComment(file: string, entry: string): CommentRecord | undefined {
        const name = entry.slice(0, -3)
        if (!isSafeName(name)) {
            this.problems.push({ file, message: nameProblem(name, 'comment'), severity: 'error' })
            return undefined
        }
        const record = this.readRecord(file, 'comment')
        if (!record) return undefined
        return commentFromFile(name, file, record.data, record.parsed.body)
    }

    private readLeaderboard(file: string, entry: string): LeaderboardRecord | undefined {
        const name = entry.replace(/\.(ya?ml|json)$/, '')
        if (!isSafeName(name)) {
            this.problems.push({
                file,
                message: nameProblem(name, 'leaderboard'),
                severity: 'error',
            })
            return undefined
        }
        const record = this.readRecord(file, 'leaderboard')
        if (!record) return undefined
        const leaderboard = toLeaderboard(name, file, record.data)
        const duplicate = findDuplicate(leaderboard.records.map((entry) => entry.name))
        if (duplicate !== undefined || leaderboard.records.some((entry) => entry.name === 'list')) {
            this.problems.push({
                file,
                field: 'records',
                message:
                    duplicate !== undefined
                        ? `two records are named "${duplicate}"`
                        : 'a record may not be named "list"',
                severity: 'error',
            })
            return undefined
        }
        return leaderboard
    }

    /** Reads, parses and validates one file; on any problem reports it and answers undefined. */
    private readRecord(
        file: string,
        schema: SchemaName | undefined,
        isDefaults = false,
        defaults: Record<string, unknown> = {},
        onInvalid?: (data: Record<string, unknown>, parsed: ParsedFile) => void,
    ): { data: Record<string, unknown>; parsed: ParsedFile } | undefined {
        let parsed: ParsedFile
        try {
            parsed = this.tools.parseCache.parse(
                file,
                readTextFile(
                    join(this.root, file),
                    schema === 'leaderboard' ? maxLeaderboardBytes : maxRecordBytes,
                ),
            )
        } catch (error) {
            this.reportFileError(file, error)
            return undefined
        }
        if (!isPlainObject(parsed.data)) {
            this.problems.push({
                file,
                line: 1,
                message: 'expected a map of fields at the top level',
                severity: 'error',
            })
            return undefined
        }
        const own = { ...parsed.data }
        if (parsed.body && schema && schema !== 'comment') {
            if ('description' in own) {
                this.problems.push({
                    file,
                    ...parsed.locate(['description']),
                    field: 'description',
                    message:
                        'the description is given twice: in the front matter and as the Markdown body',
                    severity: 'error',
                })
                return undefined
            }
            own.description = parsed.body
        }
        const data = { ...defaults, ...own }
        if (!schema) return { data, parsed }
        const issues = isDefaults
            ? this.tools.validator.validateDefaults(schema, data)
            : this.tools.validator.validate(schema, data)
        if (issues.length) {
            this.problems.push(...issues.map((issue) => this.issueProblem(file, parsed, issue)))
            onInvalid?.(data, parsed)
            return undefined
        }
        return { data, parsed }
    }

    private issueProblem(file: string, parsed: ParsedFile, issue: SchemaIssue): Problem {
        return {
            file,
            ...parsed.locate(issue.path),
            field: formatFieldPath(issue.path) || undefined,
            message: issue.message,
            severity: 'error',
        }
    }

    private reportFileError(file: string, error: unknown) {
        if (error instanceof ContentError) {
            this.problems.push({
                file,
                ...error.position,
                message: error.message,
                severity: 'error',
            })
        } else {
            this.problems.push({
                file,
                message: `cannot read: ${(error as Error).message}`,
                severity: 'error',
            })
        }
    }

    /** The entries of a folder; links that lead outside are left out and reported. */
    private async list(folder: string): Promise<Entry[]> {
        const path = join(this.root, folder)
        try {
            const entries = readdirSync(path, { withFileTypes: true }).map((entry) => ({
                name: entry.name,
                kind: this.tools.containment.kindOf(path, entry),
            }))
            this.reportOutside(
                folder,
                entries.filter((entry) => entry.kind === 'outside').map((entry) => entry.name),
            )
            for (const { name, kind } of entries) this.noticeIfLeftover(folder, name, kind)
            return entries
        } catch (error) {
            this.reportListingError(folder, error)
            return []
        }
    }

    private listItemFolder(folder: string): FolderListing {
        try {
            const listing = listFolder(
                join(this.root, folder),
                this.tools.processor.hashes,
                this.tools.containment,
            )
            this.reportOutside(folder, listing.outside ?? [])
            for (const name of listing.files) this.noticeIfLeftover(folder, name, 'file')
            for (const name of listing.folders) this.noticeIfLeftover(folder, name, 'folder')
            return listing
        } catch (error) {
            this.reportListingError(folder, error)
            return { files: [], folders: [] }
        }
    }

    /** What is at a path of the folder, a link classified by where it leads (and reported when outside). */
    private kindAt(file: string) {
        const kind = this.tools.containment.kindAt(join(this.root, file))
        if (kind === 'outside') this.reportOutside('', [file])
        return kind
    }

    /** Tells the start's sweep of an entry that a write cut short left (see `isWriteLeftover`). */
    private noticeIfLeftover(folder: string, name: string, kind: EntryKind) {
        const notice = this.tools.noticeLeftover
        if (notice && (kind === 'file' || kind === 'folder') && isWriteLeftover(name, kind))
            notice(folder ? `${folder}/${name}` : name)
    }

    private reportOutside(folder: string, names: string[]) {
        for (const name of names)
            this.problems.push({
                file: folder ? `${folder}/${name}` : name,
                message: outsideProblem,
                severity: 'error',
            })
    }

    /** A folder that is gone reads as empty; one that cannot be read is a problem. */
    private reportListingError(folder: string, error: unknown) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT')
            this.reportFileError(folder || '.', error)
    }
}

export type ProblemPosition = Omit<Problem, 'message' | 'severity'>

const locateField = (file: string, parsed: ParsedFile, field: string): ProblemPosition =>
    field in (parsed.data as object)
        ? { file, ...parsed.locate([field]), field }
        : { file: `${file.slice(0, file.indexOf('/'))}/${defaultsFileName}`, field }

/**
 * Where an item's reference fields were written. A YAML document is already parsed, so its few
 * positions are kept; a JSON record is read again only if one of its references turns out broken,
 * so that a hundred thousand pack-format records keep nothing of their files in memory.
 * (Separate functions, so that no closure keeps a parsed file alive.)
 */
const referenceLocator = (type: ContentType, root: string, file: string, parsed: ParsedFile) =>
    file.endsWith('.json')
        ? rereadingLocator(root, file)
        : positionLookup(referencePositions(type, file, parsed))

const rereadingLocator = (root: string, file: string) => (field: string) => {
    try {
        return locateField(
            file,
            parseRecordFile(file, readTextFile(join(root, file), maxRecordBytes)),
            field,
        )
    } catch {
        return { file, field }
    }
}

const referencePositions = (type: ContentType, file: string, parsed: ParsedFile) =>
    new Map(
        contentTypeInfos[type].references.map(({ field }) => [
            field,
            locateField(file, parsed, field),
        ]),
    )

const positionLookup = (positions: Map<string, ProblemPosition>) => (field: string) =>
    positions.get(field) ?? { field }

/**
 * The locator of a record a start snapshot kept (start-snapshot.ts): from the positions of its
 * reference fields for YAML and Markdown, by reading the file again for JSON, as at a load.
 */
export const keptReferenceLocator = (
    root: string,
    file: string,
    positions: [string, ProblemPosition][] | undefined,
) =>
    file.endsWith('.json') ? rereadingLocator(root, file) : positionLookup(new Map(positions ?? []))

/** The names a reference field gives, whatever else is wrong with it: one, a list, or a `{ item }`. */
const namesIn = (value: unknown): string[] => {
    if (typeof value === 'string') return [value]
    if (Array.isArray(value))
        return value.filter((name): name is string => typeof name === 'string')
    if (isPlainObject(value) && typeof value.item === 'string' && value.useDefault !== true)
        return [value.item]
    return []
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
    typeof value === 'object' && value !== null && !Array.isArray(value)

const nameProblem = (name: string, what: string) =>
    reservedItemNames.has(name)
        ? `an ${what} may not be named "${name}": that path belongs to the protocol`
        : `"${name}" is not a usable ${what} name: use only A-Z a-z 0-9 . _ ~ - and do not start with . or _`

const findDuplicate = (names: string[]) => {
    const seen = new Set<string>()
    return names.find((name) => seen.size === seen.add(name).size)
}

const toLeaderboard = (
    name: string,
    file: string,
    data: Record<string, unknown>,
): LeaderboardRecord => {
    const records = (data.records as Record<string, unknown>[] | undefined) ?? []
    return {
        name,
        file,
        title: data.title as LocalizedText,
        description: data.description as LocalizedText | undefined,
        records: records.map((record, index) => ({
            name: record.name === undefined ? String(index + 1) : String(record.name),
            rank: record.rank === undefined ? String(index + 1) : String(record.rank),
            player: String(record.player),
            value: String(record.value),
            replays: (record.replays as string[] | undefined) ?? [],
        })),
    }
}
