import { randomBytes } from 'node:crypto'
import type { SharedState } from '../shared-state/shared-state.js'
import { Refusal } from '../util/refusal.js'
import type { WriteChange } from './content-writer.js'

/** The files an upload brings, by their SHA-1. */
export type UploadedFiles = ReadonlyMap<string, Buffer>

/**
 * What finishes a submit once its files arrive: a job every replica defines at start-up under
 * one name, and its arguments as JSON, so the replica the upload reaches can do it.
 */
export type Completion = { job: string; args: unknown }

/** A submit waiting for its files: who may send them, to which endpoint, and what then happens. */
export type PendingUpload = {
    userId: string
    /** The upload endpoint's path, e.g. `/levels/upload`: a key works nowhere else. */
    endpoint: string
    hashes: string[]
    /** Files whose option allows less than the server's limit (`validation.maxSize`). */
    maxBytes: Record<string, number>
    /** The write the files complete, made by `change.user`. */
    change: WriteChange
    completion: Completion
}

/** `order` sorts keys by when they were issued, where the expiry times of two keys are the same. */
type Waiting = PendingUpload & { expiresAt: number; order: string }

/** Long enough to pick and send files on a phone, short enough that keys do not pile up. */
export const defaultUploadLifetimeMs = 10 * 60_000
/** Keys kept at once in all (a bound on memory) and per player. */
const maxPending = 10_000
const maxPendingPerUser = 20

/** The index of every waiting key (`player\norder\nkey`), and one per player (`order\nkey`), each scored by expiry. */
const allIndex = 'uploads'
const userIndex = (userId: string) => `uploads:${userId}`
const keyEntry = (key: string) => `upload:${key}`

let issued = 0
/** Sorts as issued: the time, then a count of this process's keys. */
const issueOrder = (now: number) =>
    `${now.toString(36).padStart(9, '0')}${(issued++ % 36 ** 4).toString(36).padStart(4, '0')}`

/**
 * Upload keys (§2.3): 128 random bits, bound to the user, the endpoint and the hashes a submit
 * asked for; each works once and expires. They live in the shared state, so the upload may reach
 * another replica than the submit. A player may keep a few waiting; when all players together
 * keep as many as the server holds, a new key takes the place of the oldest key of the player who
 * keeps the most, so no group of players, however large, can keep others from uploading: they
 * only lose their own oldest keys.
 */
export class UploadKeys {
    constructor(
        private readonly state: SharedState,
        private readonly lifetimeMs = defaultUploadLifetimeMs,
        private readonly capacity = maxPending,
    ) {}

    async issue(upload: PendingUpload, now = Date.now()) {
        await this.state.indexRemoveUpTo(userIndex(upload.userId), now)
        const own = await this.state.indexRange(userIndex(upload.userId))
        if (own.length >= maxPendingPerUser) {
            throw new Refusal(
                'too-many',
                `you have ${own.length} uploads waiting for their files: finish or abandon some (they expire) first`,
                Math.ceil((own[0]!.score - now) / 1000),
            )
        }
        await this.state.indexRemoveUpTo(allIndex, now)
        if ((await this.state.indexSize(allIndex)) >= this.capacity)
            await this.forgetOldestOfLargestHolder()
        const key = randomBytes(16).toString('base64url')
        const waiting: Waiting = {
            ...upload,
            expiresAt: now + this.lifetimeMs,
            order: issueOrder(now),
        }
        await this.state.set(keyEntry(key), JSON.stringify(waiting), this.lifetimeMs)
        await this.list(waiting, key)
        return key
    }

    /** The upload a key stands for, which it no longer does after this: a key works once. */
    async take(key: string, userId: string, endpoint: string): Promise<PendingUpload> {
        const found = await this.state.get(keyEntry(key))
        const upload = found && (JSON.parse(found) as Waiting)
        if (!upload) throw usedOrUnknown()
        if (upload.userId !== userId)
            throw new Refusal('unauthorized', 'the upload key belongs to another user')
        if (upload.endpoint !== endpoint)
            throw new Refusal(
                'unauthorized',
                `the upload key is for ${upload.endpoint}, not ${endpoint}`,
            )
        // Two uploads with one key, on two replicas at once: one of them takes it.
        if ((await this.state.take(keyEntry(key))) === undefined) throw usedOrUnknown()
        await this.unlist(upload, key)
        return upload
    }

    private async forgetOldestOfLargestHolder() {
        const holders = new Map<string, { order: string; key: string }[]>()
        for (const { member } of await this.state.indexRange(allIndex)) {
            const [userId, order, key] = member.split('\n') as [string, string, string]
            const keys = holders.get(userId) ?? []
            keys.push({ order, key })
            holders.set(userId, keys)
        }
        let largest: [string, { order: string; key: string }[]] | undefined
        for (const holder of holders)
            if (holder[1].length > (largest?.[1].length ?? 0)) largest = holder
        if (!largest) return
        const [userId, keys] = largest
        const oldest = keys.reduce((a, b) => (b.order < a.order ? b : a))
        await this.state.delete([keyEntry(oldest.key)])
        await this.unlist({ userId, order: oldest.order }, oldest.key)
    }

    private async list({ userId, order, expiresAt }: Waiting, key: string) {
        await this.state.indexAdd(userIndex(userId), `${order}\n${key}`, expiresAt, this.lifetimeMs)
        await this.state.indexAdd(
            allIndex,
            `${userId}\n${order}\n${key}`,
            expiresAt,
            this.lifetimeMs,
        )
    }

    private async unlist({ userId, order }: Pick<Waiting, 'userId' | 'order'>, key: string) {
        await this.state.indexRemove(userIndex(userId), [`${order}\n${key}`])
        await this.state.indexRemove(allIndex, [`${userId}\n${order}\n${key}`])
    }
}

const usedOrUnknown = () =>
    new Refusal('unauthorized', 'the upload key is unknown, expired or already used: submit again')

/**
 * The jobs that finish submits, by name. Every replica defines the same ones when its routes are
 * set up; a job reads only its JSON arguments and the files, never what the submit's request held.
 */
export class UploadJobs<Result> {
    private readonly jobs = new Map<
        string,
        (args: never, files: UploadedFiles) => Promise<Result>
    >()

    /** Defines a job; the function returned names one run of it, with its arguments. */
    define<Args>(job: string, run: (args: Args, files: UploadedFiles) => Promise<Result>) {
        this.jobs.set(job, run)
        return (args: Args): Completion => ({ job, args })
    }

    run({ job, args }: Completion, files: UploadedFiles): Promise<Result> {
        const run = this.jobs.get(job)
        if (!run)
            throw new Refusal(
                'conflict',
                `this upload finishes a "${job}" that this server does not do (a replica of another version?): submit again`,
            )
        return run(args as never, files)
    }
}
