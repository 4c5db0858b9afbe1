import { createHash, subtle } from 'node:crypto'
import { createReadStream, existsSync, readFileSync, type Stats, statSync } from 'node:fs'
import { mkdir, open, readdir, readFile, stat } from 'node:fs/promises'
import { extname, join } from 'node:path'
import { chartFormats } from '../charts/chart-formats.js'
import { writeFileAtomic } from '../util/atomic-write.js'
import { makeDurable } from '../util/durable.js'
import type { HashCache } from './hash-cache.js'
import { MadePacks, readSlice, type PackSlice } from './made-pack.js'
import type { ResourceKind } from './item-types.js'
import { ResourceBatches } from './resource-batches.js'
import { type FileStat, sha1 } from './resource-work.js'

/** A file Shelf serves at `/{name}/repository/{hash}`. */
export type ServedFile = {
    hash: string
    /** Absolute path of the exact bytes to send. */
    path: string
    contentType: string
    /** When the bytes are a slice of a pack file (`path`) rather than the whole file. */
    slice?: PackSlice
}

/** The bytes a served file stands for. */
export const readServed = (file: ServedFile) =>
    file.slice ? readSlice(file.path, file.slice) : readFile(file.path)

/** What a resource role resolved to: a file Shelf serves, or an Srl the owner points elsewhere. */
export type Resource =
    { served: ServedFile } | { external: { hash?: string | null; url?: string | null } }

const extensionsByKind: Record<ResourceKind, string[]> = {
    image: ['png', 'jpg', 'jpeg', 'webp'],
    audio: ['mp3', 'ogg', 'm4a', 'wav', 'flac'],
    json: ['json'],
    levelData: ['json', ...chartFormats.map((format) => format.extension)],
    binary: ['bin'],
    archive: ['zip'],
}

const contentTypeByExtension: Record<string, string> = {
    png: 'image/png',
    jpg: 'image/jpeg',
    jpeg: 'image/jpeg',
    webp: 'image/webp',
    mp3: 'audio/mpeg',
    ogg: 'audio/ogg',
    m4a: 'audio/mp4',
    wav: 'audio/wav',
    flac: 'audio/flac',
    zip: 'application/zip',
}

const candidatesByKind = new Map<ResourceKind, Map<string, readonly string[]>>()

/**
 * The file names that can hold a role, in the order sonolus-pack looks for them: made once per
 * role and kind (a first start of 10,000 levels asks 40,000 times, for eight names each).
 */
export const candidateFiles = (role: string, kind: ResourceKind): readonly string[] => {
    let byRole = candidatesByKind.get(kind)
    if (!byRole) candidatesByKind.set(kind, (byRole = new Map()))
    let names = byRole.get(role)
    if (!names)
        byRole.set(
            role,
            (names = [
                `${role}.srl`,
                role,
                ...extensionsByKind[kind].map((extension) => `${role}.${extension}`),
            ]),
        )
    return names
}

/**
 * Turns resource files into served bytes and their SHA-1. Bytes that Shelf produces (minified,
 * gzipped JSON and binaries) are written once into the cache folder, named by hash, so that
 * serving them is a plain file send and memory stays independent of the content's size.
 */
export class ResourceProcessor {
    /** Where made bytes are written (see `MadePacks`). */
    readonly processedFolder: string
    private ready: Promise<unknown> | undefined
    private processedFiles: Promise<MadeFiles> | undefined
    /** Bytes written since the cache was last saved, not yet known to be on disk. */
    private unsynced = new Set<string>()
    private readonly packs: MadePacks
    private readonly batches = new ResourceBatches()

    constructor(
        cacheFolder: string,
        /** Also where the loader remembers what each item folder holds. */
        readonly hashes: HashCache,
    ) {
        this.processedFolder = join(cacheFolder, 'resources')
        this.packs = new MadePacks(this.processedFolder)
    }

    async process(path: string, fileName: string): Promise<ServedFile> {
        // As `isThere`, but a file the cache knows nothing of (every file, at a first start) waits
        // for nothing more: it is stat'ed as it is read. A synchronous stat costs a few
        // microseconds; the promise version costs ten times that in bookkeeping, which at a
        // hundred thousand resources is most of a warm start.
        await this.hashes.loaded()
        const info = this.hashes.knows(path) ? statSync(path) : undefined
        const cached = info && this.hashes.lookup(path, info, this.holds(await this.madeFiles()))
        if (cached) return cached
        const { served, stat } = await this.processChanged(path, fileName, info)
        this.hashes.remember(path, stat, served)
        return served
    }

    /**
     * Bytes made from a file by other means (a chart converted by its engine's package, an
     * engine package's file, which is served from a copy in the state folder), cached like any
     * processed resource by the file's path, size and time, and by `maker`, which names what
     * made them: another maker (another package, or version) makes them again.
     */
    async processMade(
        path: string,
        maker: string,
        make: (bytes: Buffer) => Promise<Buffer>,
    ): Promise<ServedFile> {
        const info = statSync(path)
        const key = `${path}\n${maker}`
        const cached = this.hashes.lookup(key, info, await this.isThere())
        if (cached) return cached
        const made = await make(await readBytes(path, info))
        const served = { ...(await this.store(made)), contentType: contentTypeOfBytes(made) }
        this.hashes.remember(key, info, served)
        return served
    }

    /**
     * Whether the bytes Shelf made for a served file an earlier run remembered are still whole on
     * disk, once the cache can be looked in.
     */
    private async isThere() {
        // Asked before every look-up: a cache to be read whole (hash-cache.ts) is read a piece at a time, not at once in a reload.
        await this.hashes.loaded()
        return this.holds(await this.madeFiles())
    }

    private holds(made: MadeFiles) {
        return (served: ServedFile) =>
            served.slice ? this.packs.holds(served.path, served.slice) : made.has(served.path)
    }

    /**
     * The bytes Shelf made, by path: listed once for the first load, then kept up to date by
     * `store`. Once that load is saved, each is looked for on disk instead: a reload checks a few
     * files, and the set of a hundred thousand levels' paths is 15 MB kept for nothing.
     */
    private madeFiles() {
        return (this.processedFiles ??= listFiles(this.processedFolder))
    }

    /**
     * Saves what the cache remembers, once the bytes it points at are on disk: they are written
     * without waiting for the disk, one file at a time, and made durable together here, which a
     * first start of thousands of levels does in one flush rather than one per file.
     */
    async saveCache() {
        // Whatever asked for the worker is done: its memory is not kept for the next few files.
        this.batches.retire()
        // The pack is finished first: what is made durable is every byte written to it.
        await this.packs.seal()
        const written = [...this.unsynced]
        this.unsynced = new Set()
        await makeDurable(this.processedFolder, written)
        await this.hashes.save()
        this.processedFiles = Promise.resolve(filesOnDisk)
    }

    /** Ends the worker reading resources (files processed after this are read on the main thread). */
    close() {
        return this.batches.close()
    }

    /**
     * Files are read, made and hashed in batches with the others asked for at the same time, on a
     * worker thread when there are many (a first start): nearly every file of a pack tree is a few
     * hundred bytes. A large file served as it is, only hashed, is hashed on libuv's threads
     * (WebCrypto's asynchronous digest) or, past what is read whole, streamed: one whose size is
     * not known (`info`) comes back unread from its batch. What the hash cache keeps is the stat
     * taken as the file was read, or `info`.
     */
    private async processChanged(
        path: string,
        fileName: string,
        info?: FileStat,
    ): Promise<{ served: ServedFile; stat: FileStat }> {
        const extension = extname(fileName).slice(1).toLowerCase()
        const making = extension === 'json' ? 'json' : extension === 'bin' ? 'gzip' : 'none'
        const upTo = making === 'none' ? smallFileBytes : undefined
        const done =
            info && upTo !== undefined && info.size > upTo
                ? { stat: info }
                : await this.batches.work({ path, making, upTo }, info?.size)
        const stat = done.stat
        if (done.made) return { served: await this.store(done.made, done.hash), stat }
        const hash =
            done.hash ??
            (stat.size <= wholeReadBytes
                ? await digest(await readFile(path))
                : await hashFile(path))
        // Nearly every file has an extension that says its type: no await (30,000 at 10,000 levels).
        const contentType = extension
            ? contentTypeOfExtension(extension)
            : await sniffContentType(path)
        return { served: { hash, path, contentType }, stat }
    }

    /** Bytes Shelf made, written into the state folder; their `hash` when it is known already. */
    private async store(bytes: Buffer, hash?: string): Promise<ServedFile> {
        const sha1 = hash ?? (await digest(bytes))
        this.ready ??= mkdir(this.processedFolder, { recursive: true })
        await this.ready
        if (bytes.length <= packedBytes) {
            const { path, slice } = await this.packs.append(bytes)
            this.unsynced.add(path)
            return { hash: sha1, path, contentType: 'application/octet-stream', slice }
        }
        const path = join(this.processedFolder, sha1)
        // Equal bytes are one file, which two items (or an earlier run) may have made.
        const made = await this.madeFiles()
        const existing = made.has(path) ? await stat(path).catch(() => undefined) : undefined
        if (existing?.size !== bytes.length) {
            await writeFileAtomic(path, bytes, { flush: false })
            this.unsynced.add(path)
            made.add(path)
        }
        return { hash: sha1, path, contentType: 'application/octet-stream' }
    }
}

/** Made bytes up to this size go into a pack; larger ones (a few big charts) get a file each. */
const packedBytes = 256 * 1024

/** Files up to this size are read whole to be hashed; larger ones are streamed. */
const wholeReadBytes = 16 * 1024 * 1024

/** Files served as they are up to this size are hashed in batches (resource-batches.ts); bytes Shelf made up to it, on the main thread. */
const smallFileBytes = 64 * 1024

/** The type an extension says; an extensionless file's first bytes say it instead (`sniffContentType`). */
const contentTypeOfExtension = (extension: string) =>
    contentTypeByExtension[extension] ?? 'application/octet-stream'

const readBytes = async (path: string, info: Stats) =>
    info.size <= smallFileBytes ? readFileSync(path) : readFile(path)

const digest = async (bytes: Buffer) =>
    bytes.length <= smallFileBytes
        ? sha1(bytes)
        : Buffer.from(await subtle.digest('SHA-1', bytes)).toString('hex')

/** Which files Shelf made are there: a set listed once, or a look at the disk for each. */
type MadeFiles = { has(path: string): boolean; add(path: string): void }

const listFiles = async (folder: string): Promise<MadeFiles> => {
    const names = await readdir(folder).catch(() => [])
    return new Set(names.map((name) => join(folder, name)))
}

const filesOnDisk: MadeFiles = { has: (path) => existsSync(path), add: () => undefined }

const hashFile = (path: string) =>
    new Promise<string>((resolve, reject) => {
        const digest = createHash('sha1')
        createReadStream(path)
            .on('data', (chunk) => digest.update(chunk))
            .on('error', reject)
            .on('end', () => resolve(digest.digest('hex')))
    })

/** An extensionless file is served as it is; its first bytes tell the app what it holds. */
const sniffContentType = async (path: string) => {
    const handle = await open(path)
    try {
        const { buffer, bytesRead } = await handle.read(Buffer.alloc(12), 0, 12, 0)
        return contentTypeOfBytes(buffer.subarray(0, bytesRead))
    } finally {
        await handle.close()
    }
}

const signatures: [string, (bytes: Buffer) => boolean][] = [
    ['image/png', (bytes) => bytes.subarray(0, 4).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47]))],
    ['image/jpeg', (bytes) => bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff],
    [
        'image/webp',
        (bytes) =>
            bytes.toString('latin1', 0, 4) === 'RIFF' && bytes.toString('latin1', 8, 12) === 'WEBP',
    ],
    [
        'audio/wav',
        (bytes) =>
            bytes.toString('latin1', 0, 4) === 'RIFF' && bytes.toString('latin1', 8, 12) === 'WAVE',
    ],
    [
        'audio/mpeg',
        (bytes) =>
            bytes.toString('latin1', 0, 3) === 'ID3' ||
            (bytes[0] === 0xff && ((bytes[1] ?? 0) & 0xe0) === 0xe0),
    ],
    ['audio/ogg', (bytes) => bytes.toString('latin1', 0, 4) === 'OggS'],
    ['audio/flac', (bytes) => bytes.toString('latin1', 0, 4) === 'fLaC'],
    ['application/zip', (bytes) => bytes.toString('latin1', 0, 4) === 'PK\x03\x04'],
]

export const contentTypeOfBytes = (bytes: Buffer) =>
    signatures.find(([, matches]) => matches(bytes))?.[0] ?? 'application/octet-stream'
