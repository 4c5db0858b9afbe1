import fresh from 'fresh'
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http'
import type { Context, Next } from 'koa'
import { LRUCache } from 'lru-cache'
import type { Catalog } from '../catalog/catalog.js'
import { worthKeeping } from './response-cache.js'

type Prepared = { headers: OutgoingHttpHeaders; notModifiedHeaders: OutgoingHttpHeaders; body: Buffer; etag: string }

/** Bytes of answers kept per snapshot, as for the response cache inside the app. */
const budgetBytes = 32 * 1024 * 1024

/** Headers of a 200 that a 304 leaves out: it has no body. */
const bodyHeaders = new Set(['content-type', 'content-length'])

/**
 * Whole answers (status, headers and bytes) to guests' GET requests, small resources included,
 * kept per snapshot and written straight to the socket when the same request comes again: a
 * repeated page costs no routing, no middleware and no header work. The key is everything a
 * guest's answer depends on: the URL, the Host (the `source` of items) and the accepted
 * encodings. A request carrying a session or a Range, or of any other method, always goes
 * through the app, and so does an answer the app compressed as a stream or marked `no-store`.
 */
export class PreparedAnswers {
    private readonly caches = new WeakMap<Catalog, LRUCache<string, Prepared>>()

    constructor(
        private readonly currentCatalog: () => Catalog,
        private readonly sessionHeader: string,
    ) {}

    /** Writes the kept answer to a request asked before, and says whether it did. */
    answer(req: IncomingMessage, res: ServerResponse): boolean {
        const key = this.keyOf(req)
        const prepared = key === undefined ? undefined : this.caches.get(this.currentCatalog())?.get(key)
        if (!prepared) return false
        // The same test of a conditional GET as Koa's own `ctx.fresh`, which the app answers with.
        if (fresh(req.headers, { etag: prepared.etag })) {
            res.writeHead(304, prepared.notModifiedHeaders)
            res.end()
        } else {
            res.writeHead(200, prepared.headers)
            res.end(prepared.body)
        }
        return true
    }

    /** The app's outermost middleware: keeps the answers that the next identical request may reuse. */
    readonly keep = async (ctx: Context, next: Next) => {
        // The snapshot the request started with: a reload meanwhile must not file this answer under the new one.
        const catalog = this.currentCatalog()
        await next()
        const key = this.keyOf(ctx.req)
        if (key === undefined || ctx.status !== 200 || !(typeof ctx.body === 'string' || Buffer.isBuffer(ctx.body)) || !worthKeeping(ctx)) return
        const etag = ctx.response.get('ETag')
        if (!etag || String(ctx.response.get('Cache-Control')).includes('no-store')) return
        const body = Buffer.isBuffer(ctx.body) ? ctx.body : Buffer.from(ctx.body)
        ctx.body = body
        const headers = { ...ctx.response.headers }
        const notModifiedHeaders = Object.fromEntries(Object.entries(headers).filter(([name]) => !bodyHeaders.has(name)))
        this.cacheFor(catalog).set(key, { headers, notModifiedHeaders, body, etag })
    }

    private keyOf(req: IncomingMessage) {
        // A Range request (audio seeking) is for `send` to answer from the file.
        if (req.method !== 'GET' || req.headers[this.sessionHeader] !== undefined || req.headers.range !== undefined) return undefined
        return `${req.headers.host ?? ''}\n${req.headers['accept-encoding'] ?? ''}\n${req.url ?? ''}`
    }

    private cacheFor(catalog: Catalog) {
        let cache = this.caches.get(catalog)
        if (!cache) {
            cache = new LRUCache({ maxSize: budgetBytes, sizeCalculation: (entry) => entry.body.length + 256 })
            this.caches.set(catalog, cache)
        }
        return cache
    }
}
