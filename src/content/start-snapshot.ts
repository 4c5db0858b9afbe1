import { randomBytes } from 'node:crypto'
import { lstatSync, readFileSync, statSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { rename, rm } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import type { Worker } from 'node:worker_threads'
import { writeFileAtomic } from '../util/atomic-write.js'
import { growHeapToward } from '../util/heap-growth.js'
import { startWorker } from '../util/start-worker.js'
import { besideServingMs, TurnSlices } from '../util/turn-slices.js'
import { contentTypeInfos, contentTypes, type ContentType } from './item-types.js'
import { sharedContentType } from './hash-cache.js'
import { asciiJsonLine, jsonLines } from './json-lines.js'
import { keptReferenceLocator, partFolders, type ItemRecord, type ProblemPosition } from './load.js'
import type { Problem } from './problems.js'
import type { ItemFields } from './records.js'
import type { Resource } from './resources.js'
import {
    folderChecks,
    keyEnd,
    type CheckAnswer,
    type SaveAnswer,
    type SaveRequest,
} from './snapshot-checks.js'
import { survivesJson } from './start-parse-cache.js'

/**
 * The served resources of a unit as kept, in one flat array, six values each: `role, hash,
 * where, contentType, offset, length`, `where` the file's name in its item folder or the place
 * of a file Shelf made in the snapshot's `made`, then a pack slice's offset and length (-1 and 0
 * for a whole file). One array rather than one per resource and an object of them: a hundred
 * thousand levels' records are parsed at every warm start, and every object parsed is collected.
 */
type KeptServed = (string | number)[]

/** Srls that point elsewhere, by role, kept as they are. */
type KeptExternals = Record<string, Extract<Resource, { external: unknown }>>

/** One unit: `[key, record file name, fields, served resources, external ones, problems, reference positions]`. */
type KeptUnit = [
    string,
    string,
    ItemFields,
    KeptServed,
    KeptExternals | 0,
    Problem[] | 0,
    [string, ProblemPosition][] | 0,
]

/** A file Shelf made that records of the snapshot serve bytes of, and how long it must be at least. */
type MadeFile = [path: string, minBytes: number]

/** The first line of the records file; a line of each unit follows. */
type RecordsHeader = {
    format: number
    shelf: string
    id: string
    root: string
    /** Each type's defaults as they were, as JSON: a change of them reads every item of the type again. */
    defaults: Partial<Record<ContentType, string>>
    made: MadeFile[]
}

/** A unit as read back, with its place in the files. */
type ReadUnit = { index: number; key: string; record: ItemRecord; problems: Problem[] | undefined }

type KeptRecords = { header: RecordsHeader; units: ReadUnit[] }

/** The comments and leaderboards of every unit kept (only folders without any are): one array for 200,000 at 100,000 levels. */
const noParts = Object.freeze([]) as never[]

const typeByPlural = new Map<string, ContentType>(
    contentTypes.map((type) => [contentTypeInfos[type].plural, type]),
)

/** A unit a start takes from the snapshot instead of reading it. */
export type TakenUnit = { key: string; record: ItemRecord; problems: Problem[] | undefined }

/** A unit as the start's load left it, for the next snapshot. */
export type SnapshotUnit = { key: string; record: ItemRecord; problems: Problem[] | undefined }

/**
 * Bumped whenever what is kept, or what a unit's files make of it, changes; a snapshot made by
 * another build of Shelf is not trusted either (see `shelfBuild`).
 */
const format = 2

/**
 * Times closer than this to the start's load are not trusted: a file changed in the same tick
 * of the file system's clock as it was read keeps its times (FAT counts in 2 s).
 */
export const racyMs = 2000

/**
 * About how large the heap is at the listening line of a start from the snapshot, for each byte
 * of its records file: 527 MB for 82 MB at 100,000 levels.
 */
const heapPerRecordsByte = 7

/** Below this many folders the checks run on the main thread: a worker's start costs more. */
const foldersWorthAWorker = 2000

/**
 * The build that made a snapshot. A built Shelf goes by the hash of the sources it was built from
 * (`dist/.sources-sha1`, written last by scripts/build.js): `npm ci` builds again on every
 * deploy, and the same sources make the same code, so their snapshot stays good. Run from its
 * sources (tsx), or built without the stamp, its code file's size and time stand for it.
 */
let thisBuild: string | undefined
const shelfBuild = () => {
    if (thisBuild === undefined) {
        const code = fileURLToPath(import.meta.url)
        let made: string
        try {
            made = readFileSync(join(dirname(code), '..', '.sources-sha1'), 'utf8').trim()
        } catch {
            const { size, mtimeMs } = statSync(code)
            made = `${size}:${mtimeMs}`
        }
        thisBuild = `${format}:${made}`
    }
    return thisBuild
}

/** Runs the folder checks here or on a worker thread, with one interface. */
type Checker = {
    check(file: string, root: string): Promise<CheckAnswer['checked']>
    save(request: SaveRequest['save']): Promise<{ saved: Uint8Array; keptAll: boolean }>
    close(): Promise<void>
}

const checkerHere: Checker = {
    check: async (file, root) => folderChecks.check({ file, root, format }),
    save: (request) => folderChecks.save(request),
    close: async () => undefined,
}

const checkerOnWorker = (): Checker => {
    const worker: Worker = startWorker('content/snapshot-worker', {
        // Its work is stat calls and a piece of lines at a time: a small young generation keeps its memory small.
        resourceLimits: { maxYoungGenerationSizeMb: 4 },
    })
    worker.unref()
    const answer = <T>() =>
        new Promise<T>((resolve, reject) => {
            worker.once('message', resolve)
            worker.once('error', reject)
        })
    return {
        async check(file, root) {
            const answered = answer<CheckAnswer>()
            worker.postMessage({ check: { file, root, format } })
            return (await answered).checked
        },
        async save(request) {
            const answered = answer<SaveAnswer>()
            worker.postMessage({ save: request })
            const saved = await answered
            if ('failed' in saved) throw new Error(saved.failed)
            return saved
        },
        close: async () => void (await worker.terminate()),
    }
}

const sizeOf = (file: string) => {
    try {
        return statSync(file).size
    } catch {
        return undefined
    }
}

const madeFileThere = ([path, minBytes]: MadeFile) => {
    try {
        const info = lstatSync(path)
        return info.isFile() && info.size >= minBytes
    } catch {
        return false
    }
}

/**
 * What the last start's load produced, kept in the state folder and checked against the disk
 * instead of reading and parsing every record and looking up every resource again: at a hundred
 * thousand levels that reading was most of a warm start. Two files written together under one
 * id: the records (read by the main thread) and each item folder's signature (checked by a
 * worker meanwhile, see snapshot-checks.ts). A unit is taken only when its folder and every file
 * in it are as they were, its type's defaults are, and the build of Shelf is the same; anything
 * else, and a snapshot missing, cut short or broken, reads the folder as before. Only item
 * folders whose whole record came from their own files are kept (not those with comments or
 * leaderboards, an engine's package, or a chart converted by one).
 */
export class StartSnapshot {
    private checker: Checker | undefined
    private checked: Promise<CheckAnswer['checked']> | undefined
    /** The units the records file keeps, by type folder, until taken. */
    private kept: Map<string, ReadUnit[]> | undefined
    private defaults: RecordsHeader['defaults'] = {}
    /**
     * The units this start took, with where they were in the files: their checks are kept at the
     * next save. A list, not a map by key: a hundred thousand keys hashed were a tenth of a second
     * of a warm start, and nothing before the save looks a unit up.
     */
    private taken: ReadUnit[] = []
    private keptCount = 0
    /** The id of the snapshot whose units were taken. */
    private keptFrom: string | undefined
    /** When the start's load began: what changed after it may not be in what it read. */
    private readonly loadStarted = Date.now()
    /** The server is stopping: a save not begun is not begun, one under way ends at its next piece. */
    private abandoned = false

    private constructor(
        private readonly recordsFile: string,
        private readonly checksFile: string,
        private readonly root: string,
    ) {}

    /** Starts checking the snapshot of the state folder, if there is one, while the start reads on. */
    static open(stateFolder: string, root: string): StartSnapshot {
        const snapshot = new StartSnapshot(
            join(stateFolder, 'start-records.jsonl'),
            join(stateFolder, 'start-checks.jsonl'),
            root,
        )
        const checksBytes = sizeOf(snapshot.checksFile)
        const recordsBytes = sizeOf(snapshot.recordsFile)
        if (checksBytes !== undefined && recordsBytes !== undefined) {
            // A folder's checks take about 300 bytes.
            snapshot.checker =
                checksBytes / 300 < foldersWorthAWorker ? checkerHere : checkerOnWorker()
            snapshot.checked = snapshot.checker.check(snapshot.checksFile, root).catch(() => null)
            // Parsed while the worker checks the folders.
            snapshot.keep(snapshot.readRecords(recordsBytes))
        }
        return snapshot
    }

    /** Whether the records were read and are of this build and folder: the start takes units from them unless their checks fail. */
    get hasUnits() {
        return this.keptCount > 0
    }

    /** How many units this start took from the snapshot. */
    get takenCount() {
        return this.taken.length
    }

    /**
     * Takes the units of this type that the snapshot keeps, given the type's defaults as the
     * start read them, and of those the ones whose name the type folder's listing gives as a
     * folder (`isListedFolder`). They are taken before the checks of their folders are over, so
     * that the first catalog is built meanwhile: `rejected` then tells which of them are to be
     * read again.
     */
    async take(
        type: ContentType,
        defaults: Record<string, unknown>,
        isListedFolder: (name: string) => boolean,
    ): Promise<readonly TakenUnit[]> {
        const plural = contentTypeInfos[type].plural
        const units = this.kept?.get(plural)
        this.kept?.delete(plural)
        if (!units || this.defaults[type] !== JSON.stringify(defaults)) return []
        const taken = units.filter((unit) => isListedFolder(unit.record.name))
        for (const unit of taken) this.taken.push(unit)
        return taken
    }

    /** Resolves once the checks have answered (at once when there are none). */
    async checksOver() {
        await this.checked
    }

    /**
     * The keys of the units taken whose folders the checks found changed, no longer taken: every
     * unit taken when the checks failed or are of another snapshot.
     */
    async rejected(): Promise<string[]> {
        const checked = await this.checked
        this.kept = undefined
        const trusted =
            checked && checked.id === this.keptFrom && checked.unchanged.length === this.keptCount
        if (!trusted) {
            const rejected = this.taken.map((unit) => unit.key)
            this.taken = []
            return rejected
        }
        const { unchanged } = checked
        if (!unchanged.includes(0)) return []
        // One pass, the kept units moved down in place, a slice at a time: at 100,000 units a
        // filter for the rejected and another for the rest held the loop 13 ms in one turn.
        const slices = new TurnSlices(besideServingMs)
        const rejected: string[] = []
        let kept = 0
        for (const unit of this.taken) {
            if (slices.due()) await slices.pause()
            if (unchanged[unit.index] === 1) this.taken[kept++] = unit
            else rejected.push(unit.key)
        }
        this.taken.length = kept
        return rejected
    }

    /** The records file of so many bytes, if it is of this build of Shelf and this content folder. */
    private readRecords(bytes: number): KeptRecords | undefined {
        try {
            let header: RecordsHeader | undefined
            const units: ReadUnit[] = []
            const heapAtLine = bytes * heapPerRecordsByte
            for (const value of jsonLines(this.recordsFile)) {
                // Set as the heap grows: V8 reads it at whichever full collection comes next.
                if (units.length % 1000 === 0) growHeapToward(heapAtLine)
                if (header) {
                    const unit = this.readUnit(units.length, value as KeptUnit, header.made)
                    if (!unit) return undefined
                    units.push(unit)
                    continue
                }
                header = value as RecordsHeader
                if (
                    header?.format !== format ||
                    header.shelf !== shelfBuild() ||
                    header.root !== this.root ||
                    !Array.isArray(header.made) ||
                    !header.made.every(madeFileThere)
                )
                    return undefined
            }
            return header && { header, units }
        } catch {
            // Missing, cut short or not JSON: the folder is read as at a first start.
            return undefined
        }
    }

    /** Keeps the records' units by type folder, to be taken as the start reads each type. */
    private keep(records: KeptRecords | undefined) {
        if (!records) return
        this.keptFrom = records.header.id
        this.defaults = records.header.defaults ?? {}
        this.keptCount = records.units.length
        this.kept = new Map()
        for (const unit of records.units) {
            const plural = unit.key.slice(0, unit.key.indexOf('/'))
            const units = this.kept.get(plural)
            if (units) units.push(unit)
            else this.kept.set(plural, [unit])
        }
    }

    /** A unit's line as the record it keeps; undefined when it is not one. */
    private readUnit(index: number, unit: KeptUnit, made: MadeFile[]): ReadUnit | undefined {
        const [key, fileName, fields, served, externals, problems, positions] = unit
        const type = typeByPlural.get(key.slice(0, key.indexOf('/')))
        if (!type || !Array.isArray(served)) return undefined
        const base = `${this.root}/${key}/`
        const resources: Record<string, Resource> = externals ? { ...externals } : {}
        for (let at = 0; at < served.length; at += 6) {
            const role = served[at] as string
            const hash = served[at + 1] as string
            const where = served[at + 2]!
            const contentType = sharedContentType(served[at + 3] as string)
            const offset = served[at + 4] as number
            const length = served[at + 5] as number
            const path = typeof where === 'string' ? base + where : made[where]?.[0]
            if (path === undefined) return undefined
            resources[role] = {
                served:
                    offset < 0
                        ? { hash, path, contentType }
                        : { hash, path, contentType, slice: { offset, length } },
            }
        }
        const file = `${key}/${fileName}`
        const record: ItemRecord = {
            type,
            name: key.slice(key.indexOf('/') + 1),
            file,
            fields,
            locateReference: keptReferenceLocator(this.root, file, positions || undefined),
            resources,
            comments: noParts,
            leaderboards: noParts,
        }
        return { index, key, record, problems: problems || undefined }
    }

    /**
     * Writes the snapshot of the units as the start left them, unless it is the one read. A
     * folder with a time after the start's load began (less `racyMs`) may have changed since it
     * was read and is left out, to be read at the next start. Runs after the start, a piece at a
     * time between turns of the event loop.
     */
    async save(
        units: Iterable<SnapshotUnit>,
        defaults: Partial<Record<ContentType, Record<string, unknown>>>,
        listed: Iterable<readonly ItemRecord[]> = [],
    ) {
        if (this.abandoned) return this.close()
        // By their place in the checks file, which the worker copies from in that order.
        const keptAt: (SnapshotUnit | undefined)[] = new Array(this.keptCount)
        const keepable: SnapshotUnit[] = []
        // A hundred thousand units sorted out at once held the event loop for a tenth of a second and more.
        const slices = new TurnSlices(besideServingMs)
        // A unit is still as taken when its record is the one taken.
        const takenRecords = new Map<ItemRecord, ReadUnit>()
        for (const unit of this.taken) {
            if (slices.due()) await slices.pause()
            takenRecords.set(unit.record, unit)
        }
        for (const unit of units) {
            if (slices.due()) await slices.pause()
            const taken = takenRecords.get(unit.record)
            if (taken) keptAt[taken.index] = unit
            else if (isKeepable(unit)) keepable.push(unit)
        }
        // Not sorted, nor made into arrays, in one go: at a hundred thousand units that held the
        // snapshot's save 23 ms in one turn.
        const kept: SnapshotUnit[] = []
        const keep: number[] = []
        for (let index = 0; index < keptAt.length; index++) {
            if (slices.due()) await slices.pause()
            const unit = keptAt[index]
            if (!unit) continue
            kept.push(unit)
            keep.push(index)
        }
        const capture = await inListOrder(keepable, listed, slices)
        const storedDefaults = Object.fromEntries(
            Object.entries(defaults).map(([type, data]) => [type, JSON.stringify(data)]),
        )
        const sameDefaults = JSON.stringify(storedDefaults) === JSON.stringify(this.defaults)
        this.taken = []
        this.kept = undefined
        if (capture.length === 0 && kept.length === this.keptCount && sameDefaults) {
            await this.close()
            return
        }
        // Only a large capture is worth a worker (the one that checked, if there is one).
        if (capture.length < foldersWorthAWorker) await this.close()
        const checker = (this.checker ??=
            capture.length < foldersWorthAWorker ? checkerHere : checkerOnWorker())
        const id = randomBytes(8).toString('hex')
        // The new checks beside the old ones until the records are written: a save ended halfway
        // (the server stopped) leaves the last pair whole, and taken at the next start.
        const nextChecks = `${this.checksFile}.next`
        try {
            const saved = await checker.save({
                file: this.checksFile,
                next: nextChecks,
                format,
                id,
                root: this.root,
                before: this.loadStarted - racyMs,
                partFolders: [...partFolders],
                keep: Int32Array.from(keep),
                keptFrom: this.keptFrom,
                capture: await joinedKeys(capture, slices),
            })
            // Checks that lost some folders to keep would not match the records: the next start reads every folder.
            if (!saved.keptAll) return
            const written = kept
            for (let index = 0; index < capture.length; index++)
                if (saved.saved[index] === 1) written.push(capture[index]!)
            const made = await madeFilesOf(this.root, written)
            await writeFileAtomic(
                this.recordsFile,
                this.recordsText(
                    {
                        format,
                        shelf: shelfBuild(),
                        id,
                        root: this.root,
                        defaults: storedDefaults,
                        made: made.files,
                    },
                    written,
                    made.places,
                ),
            )
            // Records without their checks are never taken: a stop between the renames costs a full read, never a wrong record.
            await rename(nextChecks, this.checksFile)
        } finally {
            await rm(nextChecks, { force: true })
            await this.close()
        }
    }

    /** The records file, a piece at a time: the header, then the units. */
    private async *recordsText(
        header: RecordsHeader,
        units: SnapshotUnit[],
        made: Map<string, number>,
    ) {
        yield asciiJsonLine(header)
        const slices = new TurnSlices(besideServingMs)
        let text = ''
        for (const unit of units) {
            text += asciiJsonLine(this.keptUnit(unit, made))
            if (!slices.due()) continue
            yield text
            text = ''
            await slices.pause()
            // Thrown into the atomic write, which removes its temporary file: the next start reads every folder.
            if (this.abandoned)
                throw new Error('the server stopped before the snapshot was written')
        }
        yield text
    }

    private keptUnit({ key, record, problems }: SnapshotUnit, made: Map<string, number>): KeptUnit {
        const base = `${this.root}/${key}/`
        const served: KeptServed = []
        let externals: KeptExternals | undefined
        for (const [role, resource] of Object.entries(record.resources)) {
            if ('external' in resource) {
                ;(externals ??= {})[role] = { external: resource.external }
                continue
            }
            const { hash, path, contentType, slice } = resource.served
            const where =
                !slice && path.startsWith(base) ? path.slice(base.length) : made.get(path)!
            served.push(role, hash, where, contentType, slice?.offset ?? -1, slice?.length ?? 0)
        }
        const positions = record.file.endsWith('.json')
            ? 0
            : contentTypeInfos[record.type].references.map(
                  ({ field }) =>
                      [field, record.locateReference(field)] as [string, ProblemPosition],
              )
        return [
            key,
            record.file.slice(key.length + 1),
            record.fields,
            served,
            externals ?? 0,
            problems ?? 0,
            positions,
        ]
    }

    /**
     * A server stopping does not wait for the watcher's first scan to save the snapshot, nor for
     * the rest of a save under way: at a hundred thousand levels that was most of a minute.
     */
    abandon() {
        this.abandoned = true
    }

    /** Ends the worker checking folders, if one runs. */
    async close() {
        const checker = this.checker
        this.checker = undefined
        await checker?.close()
    }
}

/**
 * The units to capture in the order of the catalog's lists (`listed`, each sorted), those in no
 * list after them: the next start builds its first catalog from the records in the order they
 * are written, and sorting a hundred thousand levels already in order is a pass over them (0.2 s
 * of a warm start's main thread in any other order). Picked out of the lists as they are walked,
 * a slice at a time, until every unit is placed: a warm start captures the few items that
 * changed, and is not worth a table of every listed record.
 */
const inListOrder = async (
    capture: SnapshotUnit[],
    listed: Iterable<readonly ItemRecord[]>,
    slices: TurnSlices,
) => {
    // Made a slice at a time too: a cold start captures every unit.
    const unplaced = new Map<ItemRecord, SnapshotUnit>()
    for (const unit of capture) {
        if (slices.due()) await slices.pause()
        unplaced.set(unit.record, unit)
    }
    const ordered: SnapshotUnit[] = []
    for (const list of listed) {
        for (const record of list) {
            if (unplaced.size === 0) break
            if (slices.due()) await slices.pause()
            const unit = unplaced.get(record)
            if (!unit) continue
            ordered.push(unit)
            unplaced.delete(record)
        }
    }
    // What no list holds, in the order it came.
    for (const unit of unplaced.values()) ordered.push(unit)
    return ordered
}

/** The units' keys as a save's `capture`, joined a thousand at a time between slices. */
const joinedKeys = async (units: readonly SnapshotUnit[], slices: TurnSlices) => {
    const pieces: string[] = []
    for (let start = 0; start < units.length; start += 1000) {
        if (slices.due()) await slices.pause()
        let piece = ''
        for (let at = start; at < Math.min(start + 1000, units.length); at++)
            piece += units[at]!.key + keyEnd
        pieces.push(piece)
    }
    return pieces.join('')
}

/** The files Shelf made that the units serve bytes of, each with the least size that holds them, and the place of each. */
const madeFilesOf = async (root: string, units: SnapshotUnit[]) => {
    const files: MadeFile[] = []
    const places = new Map<string, number>()
    const slices = new TurnSlices(besideServingMs)
    for (const { key, record } of units) {
        if (slices.due()) await slices.pause()
        const base = `${root}/${key}/`
        for (const resource of Object.values(record.resources)) {
            if (!('served' in resource)) continue
            const { path, slice } = resource.served
            if (!slice && path.startsWith(base)) continue
            let place = places.get(path)
            if (place === undefined) places.set(path, (place = files.push([path, 0]) - 1))
            const file = files[place]!
            file[1] = Math.max(file[1], slice ? slice.offset + slice.length : 0)
        }
    }
    return { files, places }
}

/** A unit whose record survives being written as JSON and read back. */
const isKeepable = ({ key, record, problems }: SnapshotUnit) =>
    !key.endsWith('.md') &&
    record.file.startsWith(`${key}/`) &&
    survivesJson(record.fields) &&
    (problems === undefined || survivesJson(problems))
