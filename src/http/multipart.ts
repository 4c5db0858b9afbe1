import type { Context } from 'koa'
import { randomBytes } from 'node:crypto'
import { mkdir, rm } from 'node:fs/promises'
import type { IncomingMessage } from 'node:http'
import { join } from 'node:path'
import { Transform } from 'node:stream'
import { Refusal } from '../util/refusal.js'
import type { UploadedFiles } from '../writes/upload-keys.js'
import { acceptUploadedParts } from '../writes/upload-parts.js'

export type UploadLimits = {
    /** The largest file of any upload. */
    fileBytes: number
    /** The largest a given file may be, when its option says less than `fileBytes`. */
    maxBytesOf(hash: string): number
    /** Where parts wait while they arrive: inside the state folder. */
    uploadFolder: string
}

type FormidableFile = {
    filepath: string
    hash?: string | null
    size: number
    originalFilename: string | null
}

/** formidable's codes for a file or a total over the limit, and for too many files. */
const tooLarge = new Set([1009, 1016])
const tooMany = 1015

/** Non-file fields a few are tolerated, not megabytes of them. */
const maxFieldsBytes = 64 * 1024
/** What multipart framing adds to each part (boundary and part headers), generously. */
const partOverheadBytes = 16 * 1024

class BodyTooLarge extends Error {}

/**
 * The request body counted as it arrives, ended past `maxBytes`: formidable's own limits count
 * the bytes of parts, so a body that never holds a boundary would otherwise be read to its end.
 * The stream stands in for the request (formidable reads its headers and events).
 */
const limitedBody = (request: IncomingMessage, maxBytes: number) => {
    let received = 0
    const counted = new Transform({
        transform(chunk: Buffer, _encoding, done) {
            received += chunk.length
            done(received > maxBytes ? new BodyTooLarge() : undefined, chunk)
        },
    })
    request.pipe(counted)
    request.once('error', (error) => counted.destroy(error))
    // Past the limit nothing more is read: the answer is sent and the connection closed.
    counted.once('error', () => {
        request.unpipe(counted)
        request.pause()
    })
    return Object.assign(counted, { headers: request.headers }) as unknown as IncomingMessage
}

/**
 * The `files` parts of a multipart upload, by their SHA-1 (§2.3), as writes/upload-parts.ts
 * accepts them. Parts go through temporary files in a folder of their own in the state folder
 * (not memory, not /tmp), removed with it before returning, whatever happened.
 */
export const readUploadedFiles = async (
    ctx: Context,
    expected: readonly string[],
    limits: UploadLimits,
): Promise<UploadedFiles> => {
    if (!ctx.is('multipart/form-data'))
        throw new Refusal(
            'invalid',
            `an upload must be multipart/form-data with its files in the field "files", got ${ctx.get('Content-Type') || 'no Content-Type'}`,
        )
    const maxBodyBytes =
        limits.fileBytes * expected.length +
        maxFieldsBytes +
        partOverheadBytes * (expected.length + 1)
    const declared = Number(ctx.get('Content-Length') || 0)
    if (declared > maxBodyBytes) throw new Refusal('too-large', bodyTooLarge(maxBodyBytes))
    const folder = join(limits.uploadFolder, randomBytes(8).toString('hex'))
    await mkdir(folder, { recursive: true })
    // Loaded on the first upload: koa-body and formidable take a tenth of a second or more to
    // load, at every start of a server that may never see an upload.
    const { koaBody } = await import('koa-body')
    const parse = koaBody({
        multipart: true,
        json: false,
        urlencoded: false,
        text: false,
        formidable: {
            uploadDir: folder,
            hashAlgorithm: 'sha1',
            maxFiles: expected.length,
            maxFileSize: limits.fileBytes,
            maxTotalFileSize: limits.fileBytes * expected.length,
            allowEmptyFiles: true,
            minFileSize: 0,
            maxFieldsSize: maxFieldsBytes,
        },
    })
    const request = ctx.req
    try {
        ctx.req = limitedBody(request, maxBodyBytes)
        await parse(ctx, async () => {})
        const files =
            (ctx.request as { files?: Record<string, FormidableFile | FormidableFile[]> }).files ??
            {}
        const parts = Object.entries(files).flatMap(([field, entry]) =>
            [entry].flat().map((part) => ({
                field,
                hash: part.hash ?? '',
                size: part.size,
                path: part.filepath,
            })),
        )
        return await acceptUploadedParts(parts, expected, limits.maxBytesOf)
    } catch (error) {
        // The rest of an oversized body is not read: the connection cannot carry another request.
        if (error instanceof BodyTooLarge) ctx.set('Connection', 'close')
        throw uploadError(error, limits.fileBytes, maxBodyBytes)
    } finally {
        ctx.req = request
        await rm(folder, { recursive: true, force: true })
    }
}

const bodyTooLarge = (maxBodyBytes: number) =>
    `the upload is larger than its files may be (at most ${maxBodyBytes} bytes in all)`

const uploadError = (error: unknown, fileBytes: number, maxBodyBytes: number) => {
    if (error instanceof Refusal) return error
    if (error instanceof BodyTooLarge) return new Refusal('too-large', bodyTooLarge(maxBodyBytes))
    const code = (error as { code?: number }).code
    if (code !== undefined && tooLarge.has(code))
        return new Refusal(
            'too-large',
            `a file is larger than this server takes (${fileBytes} bytes)`,
        )
    if (code === tooMany) return new Refusal('invalid', 'more files than the submit asked for')
    return new Refusal('invalid', `the upload could not be read: ${(error as Error).message}`)
}
