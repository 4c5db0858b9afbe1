import { randomBytes } from 'node:crypto'
import { readdirSync, statSync } from 'node:fs'
import { open, type FileHandle } from 'node:fs/promises'
import { join } from 'node:path'
import { setImmediate as nextTurn } from 'node:timers/promises'

/** Where a served resource's bytes lie inside a pack file. */
export type PackSlice = { offset: number; length: number }

const packName = /^pack-[0-9a-z]+-[0-9a-f]{8}$/

/**
 * The small bytes Shelf makes (minified, gzipped level data and the like), appended one after
 * the other to a file of their own rather than written as a file each: creating a file costs far
 * more than writing a few KiB (a cold start of 10,000 levels spent half its CPU time creating
 * them). Each process appends to a pack it names itself, so two processes sharing the state
 * folder (a server and an export) never write into each other's; a slice is written before it
 * is handed out, and the hash cache naming it is saved only once the pack is on disk.
 */
export class MadePacks {
    /** The size of each finished pack: a slice past it is not there (a crash cut it short). */
    private readonly sizes = new Map<string, number>()
    private own: OwnPack | undefined

    constructor(private readonly folder: string) {
        let names: string[] = []
        try {
            names = readdirSync(folder)
        } catch {
            // No folder yet: no packs.
        }
        for (const name of names.filter((name) => packName.test(name))) {
            const path = join(folder, name)
            const size = statSync(path, { throwIfNoEntry: false })?.size
            if (size !== undefined) this.sizes.set(path, size)
        }
    }

    /** Whether a slice remembered is whole in its pack (the one being written counts what it was given). */
    holds(path: string, slice: PackSlice) {
        const size = path === this.own?.path ? this.own.size : this.sizes.get(path)
        return size !== undefined && slice.offset + slice.length <= size
    }

    /**
     * Appends bytes to this process's pack, made at the first call (the folder must exist), and
     * answers once they are written. The bytes appended during one turn of the event loop are
     * written together at the next (a first start of 10,000 levels appended 10,000 charts of a
     * KiB, and each write of its own cost a round trip to a thread).
     */
    async append(bytes: Buffer): Promise<{ path: string; slice: PackSlice }> {
        if (!this.own) {
            const name = `pack-${Date.now().toString(36)}-${randomBytes(4).toString('hex')}`
            const path = join(this.folder, name)
            this.own = { path, handle: open(path, 'wx+'), size: 0, writes: new Set() }
        }
        const own = this.own
        const slice = { offset: own.size, length: bytes.length }
        own.size += bytes.length
        const batch = (own.batch ??= writtenAtNextTurn(own, slice.offset))
        batch.chunks.push(bytes)
        batch.length += bytes.length
        if (batch.length >= batchBytes) own.batch = undefined
        await batch.written
        return { path: own.path, slice }
    }

    /**
     * Finishes this process's pack: its writes are done and it is closed, and the next append
     * starts another. Answers its path, to be made durable, when there was one.
     */
    async seal(): Promise<string | undefined> {
        const own = this.own
        if (!own) return undefined
        this.own = undefined
        await Promise.allSettled(own.writes)
        await (await own.handle.catch(() => undefined))?.close()
        this.sizes.set(own.path, own.size)
        return own.path
    }
}

type Batch = { chunks: Buffer[]; offset: number; length: number; written: Promise<unknown> }

type OwnPack = {
    path: string
    handle: Promise<FileHandle>
    size: number
    /** The bytes appended since the last write, which the next turn writes. */
    batch?: Batch
    writes: Set<Promise<unknown>>
}

/** Bytes past which a batch is written as it is and the next append starts another. */
const batchBytes = 1024 * 1024

/**
 * A batch starting at `offset` of the pack, written once the turn that opened it is over: no
 * append joins it after that, and slices are claimed in order, so batches are written in place
 * and run at the same time.
 */
const writtenAtNextTurn = (own: OwnPack, offset: number): Batch => {
    const batch: Batch = { chunks: [], offset, length: 0, written: Promise.resolve() }
    batch.written = nextTurn().then(async () => {
        if (own.batch === batch) own.batch = undefined
        const bytes = Buffer.concat(batch.chunks, batch.length)
        await (await own.handle).write(bytes, 0, bytes.length, batch.offset)
    })
    own.writes.add(batch.written)
    void batch.written.then(
        () => own.writes.delete(batch.written),
        () => own.writes.delete(batch.written),
    )
    return batch
}

/** The bytes of a slice of a pack; a slice not wholly there is an `ENOENT`, as a missing file is. */
export const readSlice = async (path: string, { offset, length }: PackSlice) => {
    const handle = await open(path, 'r')
    try {
        const bytes = Buffer.allocUnsafe(length)
        const { bytesRead } = await handle.read(bytes, 0, length, offset)
        if (bytesRead !== length)
            throw Object.assign(new Error(`${path} ends before the resource`), { code: 'ENOENT' })
        return bytes
    } finally {
        await handle.close()
    }
}
