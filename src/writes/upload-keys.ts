import { randomBytes } from 'node:crypto'
import { HttpError } from '../http/http-error.js'

/** The files an upload brings, by their SHA-1. */
export type UploadedFiles = ReadonlyMap<string, Buffer>

/** A submit waiting for its files: who may send them, to which endpoint, and what then happens. */
export type PendingUpload<Result> = {
    userId: string
    /** The upload endpoint's path, e.g. `/levels/upload`: a key works nowhere else. */
    endpoint: string
    hashes: string[]
    /** Files whose option allows less than the server's limit (`validation.maxSize`). */
    maxBytes: Record<string, number>
    complete(files: UploadedFiles): Promise<Result>
}

/** Long enough to pick and send files on a phone, short enough that keys do not pile up. */
export const defaultUploadLifetimeMs = 10 * 60_000
/** Keys waiting at once, in all and per player; past these a submit is refused until some expire. */
const maxPending = 10_000
const maxPendingPerUser = 20

/**
 * Upload keys (§2.3): 128 random bits, bound to the user, the endpoint and the hashes a submit
 * asked for; each works once and expires.
 */
export class UploadKeys<Result> {
    private readonly pending = new Map<string, PendingUpload<Result> & { expiresAt: number }>()

    constructor(private readonly lifetimeMs = defaultUploadLifetimeMs) {}

    issue(upload: PendingUpload<Result>, now = Date.now()) {
        this.forgetExpired(now)
        if (this.pending.size >= maxPending) throw new HttpError(400, 'too many uploads are waiting; try again in a few minutes')
        const own = [...this.pending.values()].filter((pending) => pending.userId === upload.userId).length
        if (own >= maxPendingPerUser) throw new HttpError(400, `you have ${own} uploads waiting for their files: finish or abandon some (they expire) first`)
        const key = randomBytes(16).toString('base64url')
        this.pending.set(key, { ...upload, expiresAt: now + this.lifetimeMs })
        return key
    }

    /** The upload a key stands for, which it no longer does after this: a key works once. */
    take(key: string, userId: string, endpoint: string, now = Date.now()): PendingUpload<Result> {
        this.forgetExpired(now)
        const upload = this.pending.get(key)
        if (!upload) throw new HttpError(401, 'the upload key is unknown, expired or already used: submit again')
        if (upload.userId !== userId) throw new HttpError(401, 'the upload key belongs to another user')
        if (upload.endpoint !== endpoint) throw new HttpError(401, `the upload key is for ${upload.endpoint}, not ${endpoint}`)
        this.pending.delete(key)
        return upload
    }

    private forgetExpired(now: number) {
        for (const [key, upload] of this.pending) if (upload.expiresAt <= now) this.pending.delete(key)
    }
}
