import { randomBytes } from 'node:crypto'
import { Refusal } from '../util/refusal.js'

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

type Waiting<Result> = PendingUpload<Result> & { key: string; expiresAt: number }

/** Long enough to pick and send files on a phone, short enough that keys do not pile up. */
export const defaultUploadLifetimeMs = 10 * 60_000
/** Keys kept at once in all (a bound on memory) and per player. */
const maxPending = 10_000
const maxPendingPerUser = 20

/**
 * Upload keys (§2.3): 128 random bits, bound to the user, the endpoint and the hashes a submit
 * asked for; each works once and expires. A player may keep a few waiting; when all players
 * together keep as many as the server holds, a new key takes the place of the oldest key of the
 * player who keeps the most, so no group of players, however large, can keep others from
 * uploading: they only lose their own oldest keys.
 */
export class UploadKeys<Result> {
    private readonly pending = new Map<string, Waiting<Result>>()
    /** Each player's waiting keys, oldest first. */
    private readonly byUser = new Map<string, Waiting<Result>[]>()

    constructor(
        private readonly lifetimeMs = defaultUploadLifetimeMs,
        private readonly capacity = maxPending,
    ) {}

    issue(upload: PendingUpload<Result>, now = Date.now()) {
        this.forgetExpired(now)
        const own = this.byUser.get(upload.userId) ?? []
        if (own.length >= maxPendingPerUser) {
            throw new Refusal(
                'too-many',
                `you have ${own.length} uploads waiting for their files: finish or abandon some (they expire) first`,
                Math.ceil((own[0]!.expiresAt - now) / 1000),
            )
        }
        if (this.pending.size >= this.capacity) this.forget(this.oldestOfLargestHolder())
        const waiting = {
            ...upload,
            key: randomBytes(16).toString('base64url'),
            expiresAt: now + this.lifetimeMs,
        }
        this.pending.set(waiting.key, waiting)
        this.byUser.set(upload.userId, [...own, waiting])
        return waiting.key
    }

    /** The upload a key stands for, which it no longer does after this: a key works once. */
    take(key: string, userId: string, endpoint: string, now = Date.now()): PendingUpload<Result> {
        this.forgetExpired(now)
        const upload = this.pending.get(key)
        if (!upload)
            throw new Refusal(
                'unauthorized',
                'the upload key is unknown, expired or already used: submit again',
            )
        if (upload.userId !== userId)
            throw new Refusal('unauthorized', 'the upload key belongs to another user')
        if (upload.endpoint !== endpoint)
            throw new Refusal(
                'unauthorized',
                `the upload key is for ${upload.endpoint}, not ${endpoint}`,
            )
        this.forget(upload)
        return upload
    }

    private oldestOfLargestHolder() {
        let largest: Waiting<Result>[] = []
        for (const keys of this.byUser.values()) if (keys.length > largest.length) largest = keys
        return largest[0]!
    }

    private forget(upload: Waiting<Result>) {
        this.pending.delete(upload.key)
        const rest = (this.byUser.get(upload.userId) ?? []).filter((waiting) => waiting !== upload)
        if (rest.length) this.byUser.set(upload.userId, rest)
        else this.byUser.delete(upload.userId)
    }

    private forgetExpired(now: number) {
        // Keys expire in the order they were issued: the oldest are first in the map.
        for (const upload of this.pending.values()) {
            if (upload.expiresAt > now) break
            this.forget(upload)
        }
    }
}
