import type { Context } from 'koa'
import { stat } from 'node:fs/promises'
import { basename, dirname } from 'node:path'
import { cachedForSeconds, immutableCacheControl } from '../../../../answers/served-headers.js'
import type { Containment } from '../../../../content/containment.js'
import { readServed, type ServedFile } from '../../../../content/resources.js'
import { notFound } from '../../../http-error.js'
import type { ShelfHandler } from '../../../request-state.js'
import { sendFile } from '../../../../util/send-file.js'

const sha1Hex = /^[0-9a-f]{40}$/

/**
 * Resources up to this size (covers, thumbnails, most data files) are answered as bytes in
 * memory, so that the app's answers kept per snapshot hold them; larger ones stream from disk.
 */
const inMemoryBytes = 256 * 1024

/**
 * `GET /{name}/repository/{hash}`: resource bytes by hash, cached for a year as immutable. A
 * small resource is read whole and answered like any other body (Koa answers its conditional
 * GET, and the answer is kept for the next guest); `send` answers Range requests (audio seeking)
 * and every larger resource from the file.
 */
export const getResource =
    (containment: Containment): ShelfHandler =>
    async (ctx) => {
        const hash = String(ctx.params.hash)
        if (!sha1Hex.test(hash)) notFound(`"${hash.slice(0, 60)}" is not a resource hash`)
        const known =
            ctx.state.shelf.catalog.resources.get(hash) ?? notFound(`no resource with hash ${hash}`)
        // The file was inside when it was read; it may have become a link to anywhere since.
        const path = (await containment.servable(known.path)) ?? notFound(missingOnDisk(hash))
        const file = { ...known, path }
        ctx.set('Content-Type', file.contentType)
        ctx.set('ETag', `"${hash}"`)
        const size = ctx.get('Range')
            ? undefined
            : (file.slice?.length ?? (await stat(path).catch(() => undefined))?.size)
        if (size !== undefined && size <= inMemoryBytes) await answerFromMemory(ctx, file, hash)
        else await answerWithSend(ctx, file, hash)
    }

const missingOnDisk = (hash: string) => `resource ${hash} is missing on disk`

const answerFromMemory = async (ctx: Context, file: ServedFile, hash: string) => {
    const bytes = await readServed(file).catch(() => notFound(missingOnDisk(hash)))
    // The header `send` writes for the larger ones, from the same settings.
    ctx.set('Cache-Control', immutableCacheControl)
    ctx.body = bytes
}

const answerWithSend = async (ctx: Context, file: ServedFile, hash: string) => {
    // `send` writes the response itself; the status must leave Koa's default 404 first, or
    // `send` would take the response for an error and never answer 304.
    ctx.status = 200
    // Koa set the reason phrase of that 200 ("OK"); `send` may answer 206 or 304, which need their own.
    ctx.res.statusMessage = ''
    ctx.respond = false
    // `send` takes a URL path and refuses one with a dot-segment unless told otherwise: the file
    // is named relative to its own folder, which may be `.shelf/` or lie under a hidden one
    // (`~/.local/…`). What may be served was decided by the catalog and `containment`.
    await sendFile(
        ctx.req,
        ctx.res,
        `/${encodeURIComponent(basename(file.path))}`,
        {
            root: dirname(file.path),
            dotfiles: 'allow',
            maxAge: cachedForSeconds * 1000,
            immutable: true,
            lastModified: false,
            etag: false,
            // A slice of a pack is sent as if it were the whole file: `Range` counts within it.
            ...(file.slice && {
                start: file.slice.offset,
                end: file.slice.offset + file.slice.length - 1,
            }),
        },
        { missing: missingOnDisk(hash), unreadable: 'cannot read the resource' },
    )
}
