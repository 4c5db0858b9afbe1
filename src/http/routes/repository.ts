import { notFound } from '../http-error.js'
import type Router from '@koa/router'
import send from 'send'
import type { ShelfContext } from '../request-state.js'

const sha1Hex = /^[0-9a-f]{40}$/

/**
 * Resource bytes by hash. The bytes behind a hash never change, so they are cached for a year as
 * immutable; `send` answers conditional and Range requests (audio seeking) from the file.
 */
export const repositoryRoutes = (router: Router) => {
    router.get('/repository/:hash', async (ctx) => {
        const hash = String(ctx.params.hash)
        if (!sha1Hex.test(hash)) notFound(`"${hash.slice(0, 60)}" is not a resource hash`)
        const file = (ctx as ShelfContext).state.shelf.catalog.resources.get(hash) ?? notFound(`no resource with hash ${hash}`)
        ctx.set('Content-Type', file.contentType)
        ctx.set('ETag', `"${hash}"`)
        // `send` writes the response itself; the status must leave Koa's default 404 first, or
        // `send` would take the response for an error and never answer 304.
        ctx.status = 200
        ctx.respond = false
        await new Promise<void>((resolve, reject) => {
            send(ctx.req, file.path, { maxAge: '365d', immutable: true, lastModified: false, etag: false })
                .on('error', (error: Error & { status?: number }) => {
                    ctx.res.statusCode = error.status ?? 500
                    ctx.res.setHeader('Content-Type', 'application/json; charset=utf-8')
                    ctx.res.end(JSON.stringify({ message: error.status === 404 ? `resource ${hash} is missing on disk` : 'cannot read the resource' }))
                    resolve()
                })
                .on('end', resolve)
                .pipe(ctx.res)
                .on('error', reject)
        })
    })
}
