import type { Context } from 'koa'
import getRawBody from 'raw-body'
import { HttpError } from './http-error.js'

/**
 * The largest JSON body taken: a level result carries a whole replay record (level, engine,
 * skin… with their texts), which stays well under this.
 */
const limit = '1mb'

/**
 * The exact bytes of a JSON request body. Signed requests are verified over these bytes, so
 * they are read here rather than by a parser that would hand back only the parsed value.
 */
export const readJsonBytes = async (ctx: Context): Promise<Buffer> => {
    if (!ctx.is('application/json'))
        throw new HttpError(
            400,
            `the body must be JSON (Content-Type: application/json), got ${ctx.get('Content-Type') || 'no Content-Type'}`,
        )
    try {
        return await getRawBody(ctx.req, { length: ctx.get('Content-Length') || undefined, limit })
    } catch (error) {
        const status = (error as { status?: number }).status
        if (status === 413) throw new HttpError(413, `the body is larger than ${limit}`)
        throw new HttpError(400, `the body could not be read: ${(error as Error).message}`)
    }
}

/** JSON bytes parsed; bytes that are not JSON are the client's mistake (400). */
export const parseJsonBytes = (bytes: Buffer): unknown => {
    try {
        return JSON.parse(bytes.toString('utf8')) as unknown
    } catch (error) {
        throw new HttpError(400, `the body is not JSON: ${(error as Error).message}`)
    }
}

/** A JSON body, parsed. */
export const readJson = async (ctx: Context): Promise<unknown> =>
    parseJsonBytes(await readJsonBytes(ctx))
