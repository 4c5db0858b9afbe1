import type { SessionUser } from '../auth/sessions.js'
import type { FormDeclaration, WriteKind } from '../content/server-settings.js'
import type { FormValues } from '../writes/item-files.js'
import type { WriteChange } from '../writes/content-writer.js'
import type { Completion, UploadJobs, UploadKeys } from '../writes/upload-keys.js'
import { readUploadedFiles } from './multipart.js'
import { refuseBanned } from '../writes/permissions.js'
import type { WriteRates } from '../writes/write-rates.js'
import type { WriteTarget } from '../writes/write-checks.js'
import { decodeOption } from '../content/form-values.js'
import { HttpError } from './http-error.js'
import { readJson } from './json-body.js'
import type { ShelfContext } from './request-state.js'
import { respond } from './respond.js'
import { signedInUser } from './session.js'

/** The UI flags a submit or upload answers with (`shouldUpdate…`, `shouldNavigate…`). */
export type Flags = Record<string, boolean | string | number>

/** What the routes that write share. */
export type Writes = WriteTarget & {
    uploads: UploadKeys
    /** What finishes each kind of submit, defined by the routes, run when its files arrive. */
    jobs: UploadJobs<Flags>
    /** How fast each player and address writes (server.yaml `limits`). */
    rates: WriteRates
    /** Where upload parts wait while they arrive. */
    uploadFolder: string
    uploadKeyHeader: string
}

export type Submission = {
    user: SessionUser
    body: Record<string, unknown>
    form: FormDeclaration
    values: FormValues
}

/**
 * A submit's body (`{ values }`, plus what the endpoint adds), decoded against the forms offered
 * there: `type=` names the form, each option is decoded with its default for what was left out,
 * and a required option left empty is refused, naming it.
 */
export const readSubmission = async (
    ctx: ShelfContext,
    forms: readonly FormDeclaration[],
    what: string,
): Promise<Submission> => {
    const user = signedInUser(ctx)
    refuseBanned(user, ctx.state.shelf.catalog.settings.banned)
    const body = await readJson(ctx)
    if (
        typeof body !== 'object' ||
        body === null ||
        typeof (body as { values?: unknown }).values !== 'string'
    ) {
        throw new HttpError(
            400,
            'the body must be a JSON object with "values", the form\'s values as a query string',
        )
    }
    const input = new URLSearchParams((body as { values: string }).values)
    const type = input.get('type')
    const form = forms.find((candidate) => candidate.type === type)
    if (!form) {
        const offered = forms.map((candidate) => candidate.type).join(', ') || 'none'
        throw new HttpError(400, `no ${what} form "${type ?? ''}" here (offered: ${offered})`)
    }
    const values = (form.options ?? []).map((option) => {
        const value = decodeOption(option, { get: (query) => input.get(query) ?? undefined })
        if (option.required && (value === '' || value === null || value === undefined))
            throw new HttpError(400, `option "${option.query}" is required`)
        return { query: option.query, type: option.type, value, charts: option.charts }
    })
    return { user, body: body as Record<string, unknown>, form, values }
}

/** Counts a write of a kind against its player's and address's rates (429 past them). */
export const countWrite = (ctx: ShelfContext, writes: Writes, kind: WriteKind, user: SessionUser) =>
    writes.rates.take(kind, ctx.state.shelf.catalog.settings.limits[kind], {
        player: user.id,
        address: ctx.ip,
    })

/** A file a submit asks for, and the most bytes its option takes. */
export type ExpectedFile = { hash: string; maxBytes?: number }

/** The files a submission's file options name. */
export const expectedFiles = ({ form, values }: Submission): ExpectedFile[] =>
    values
        .filter(({ type, value }) => type === 'file' && value !== '')
        .map(({ query, value }) => {
            const validation = form.options?.find((option) => option.query === query)
                ?.validation as { maxSize?: number } | undefined
            return { hash: String(value), maxBytes: validation?.maxSize }
        })

/**
 * Answers a submit (§2.3). With no files to wait for it is done now; otherwise the answer is an
 * upload key for exactly these hashes, this user and the paired upload endpoint, and the work is
 * done when the files arrive, on whichever replica they reach. The work is one write by
 * `change.user`, recorded as `change.did`.
 */
export const answerSubmit = async (
    ctx: ShelfContext,
    writes: Writes,
    change: WriteChange,
    files: ExpectedFile[],
    completion: Completion,
) => {
    const { user } = change
    const hashes = [...new Set(files.map(({ hash }) => hash))]
    if (!hashes.length) {
        respond(ctx, {
            key: '',
            hashes: [],
            ...(await writes.writer.as(change, () => writes.jobs.run(completion, new Map()))),
        })
        return
    }
    const maxBytes = Object.fromEntries(
        files
            .filter((file) => file.maxBytes !== undefined)
            .map((file) => [file.hash, file.maxBytes!]),
    )
    const endpoint = ctx.path.replace(/\/(submit|create)$/, '/upload')
    respond(ctx, {
        key: await writes.uploads.issue({
            userId: user.id,
            endpoint,
            hashes,
            maxBytes,
            change,
            completion,
        }),
        hashes,
    })
}

/** Answers an upload: the key is checked before the body is read, then the files complete the submit. */
export const answerUpload = async (ctx: ShelfContext, writes: Writes) => {
    const user = signedInUser(ctx)
    const key = ctx.get(writes.uploadKeyHeader)
    if (!key)
        throw new HttpError(
            400,
            `an upload needs the ${writes.uploadKeyHeader} header from its submit`,
        )
    const upload = await writes.uploads.take(key, user.id, ctx.path)
    const { limits } = ctx.state.shelf.catalog.settings
    const files = await readUploadedFiles(ctx, upload.hashes, {
        fileBytes: limits.fileBytes,
        maxBytesOf: (hash) => Math.min(limits.fileBytes, upload.maxBytes[hash] ?? Infinity),
        uploadFolder: writes.uploadFolder,
    })
    respond(
        ctx,
        await writes.writer.as(upload.change, () => writes.jobs.run(upload.completion, files)),
    )
}
