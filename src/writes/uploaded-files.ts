import type { Context } from 'koa'
import { randomBytes } from 'node:crypto'
import { mkdir, readFile, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { HttpError } from '../http/http-error.js'
import type { UploadedFiles } from './upload-keys.js'

export type UploadLimits = {
    /** The largest file of any upload. */
    fileBytes: number
    /** The largest a given file may be, when its option says less than `fileBytes`. */
    maxBytesOf(hash: string): number
    /** Where parts wait while they arrive: inside the state folder. */
    uploadFolder: string
}

type FormidableFile = { filepath: string; hash?: string | null; size: number; originalFilename: string | null }

/** formidable's codes for a file or a total over the limit, and for too many files. */
const tooLarge = new Set([1009, 1016])
const tooMany = 1015

/**
 * The `files` parts of a multipart upload, by their SHA-1 (§2.3). Every part must be one of the
 * expected hashes, and every expected hash must arrive; names and order are not trusted. Parts go
 * through temporary files in a folder of their own in the state folder (not memory, not /tmp),
 * removed with it before returning, whatever happened.
 */
export const readUploadedFiles = async (ctx: Context, expected: readonly string[], limits: UploadLimits): Promise<UploadedFiles> => {
    if (!ctx.is('multipart/form-data')) throw new HttpError(400, `an upload must be multipart/form-data with its files in the field "files", got ${ctx.get('Content-Type') || 'no Content-Type'}`)
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
            // Uploads carry files only; a few fields are tolerated, not megabytes of them.
            maxFieldsSize: 64 * 1024,
        },
    })
    try {
        await parse(ctx, async () => {})
        const files = (ctx.request as { files?: Record<string, FormidableFile | FormidableFile[]> }).files ?? {}
        const parts = Object.values(files).flat()
        const others = Object.keys(files).filter((field) => field !== 'files')
        if (others.length) throw new HttpError(400, `files go in the field "files", not ${others.map((field) => `"${field}"`).join(', ')}`)
        const received = new Map<string, Buffer>()
        for (const part of parts) {
            const hash = part.hash ?? ''
            if (!expected.includes(hash)) throw new HttpError(400, `a file with SHA-1 ${hash} was not asked for (expected ${expected.join(', ')})`)
            const maxBytes = limits.maxBytesOf(hash)
            if (part.size > maxBytes) throw new HttpError(413, `the file ${hash} is ${part.size} bytes; its option takes at most ${maxBytes}`)
            received.set(hash, await readFile(part.filepath))
        }
        const missing = expected.filter((hash) => !received.has(hash))
        if (missing.length) throw new HttpError(400, `files missing from the upload: ${missing.join(', ')}`)
        return received
    } catch (error) {
        throw uploadError(error, limits.fileBytes)
    } finally {
        await rm(folder, { recursive: true, force: true })
    }
}

const uploadError = (error: unknown, fileBytes: number) => {
    if (error instanceof HttpError) return error
    const code = (error as { code?: number }).code
    if (code !== undefined && tooLarge.has(code)) return new HttpError(413, `a file is larger than this server takes (${fileBytes} bytes)`)
    if (code === tooMany) return new HttpError(400, 'more files than the submit asked for')
    return new HttpError(400, `the upload could not be read: ${(error as Error).message}`)
}
