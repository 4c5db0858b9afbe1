import fresh from 'fresh'
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http'
import type { Context, Next } from 'koa'
import type { Catalog } from '../catalog/catalog.js'
import { cachesPer } from './answer-caches.js'
import type { EncodedState } from './encode-answers.js'
import type { EncodedAnswer, Encoding, Representation } from './encoded-answer.js'
import { worthKeeping } from './response-cache.js'

/** The headers of one representation's 200 and 304. */
type Sent = { headers: OutgoingHttpHeaders; notModifiedHeaders: OutgoingHttpHeaders }
type Prepared = {
    answer: EncodedAnswer
    /** The answer's headers but those of one representation. */
    common: OutgoingHttpHeaders
    /** Each representation's headers, made when it is first sent. */
    sent: Partial<Record<Encoding, Sent>>
}

/** Bytes of answers kept per snapshot, every encoding of each counted, as for the response cache inside the app. */
const budgetBytes = 32 * 1024 * 1024
/** What the headers of an answer's three representations are counted as. */
const headersBytes = 3 * 256

/** Headers that belong to one representation, set again for each. */
const representationHeaders = new Set(['content-length', 'content-encoding', 'etag'])
/** Headers of a 200 that a 304 leaves out: it has no body. */
const bodyHeaders = new Set(['content-type', 'content-length', 'content-encoding'])

/**
 * Whole answers (status, headers and bytes, in every encoding) to guests' GET requests, small
 * resources included, kept per snapshot and written straight to the socket when the same request
 * comes again: a repeated page costs no routing, no middleware, no header work and no
 * compression. The key is everything a guest's answer depends on: the URL and the Host (the
 * `source` of items); the encoding is chosen per request among those kept. Any route's answer is
 * kept this way, pages outside the protocol included, when it is a guest's GET answered 200 with
 * a body (see encode-answers.ts), and not marked `Cache-Control: no-store` nor varying by another
 * request header than Accept-Encoding (`Vary`). A request carrying a session or a Range, or of
 * any other method, always goes through the app, and so do typed searches (`worthKeeping`). A
 * protocol answer is kept from the second ask of its URL (the response cache tells), so URLs
 * asked once do not push out the ones that repeat.
 */
export class PreparedAnswers {
    private readonly cacheFor = cachesPer<Catalog, Prepared>(
        budgetBytes,
        (entry) => entry.answer.keptBytes + headersBytes,
    )

    constructor(
        private readonly currentCatalog: () => Catalog,
        /** The session headers of every protocol name, lower-case. */
        private readonly sessionHeaders: string[],
    ) {}

    /** Writes the kept answer to a request asked before, and says whether it did. */
    answer(req: IncomingMessage, res: ServerResponse): boolean {
        const key = this.keyOf(req)
        const prepared =
            key === undefined ? undefined : this.cacheFor(this.currentCatalog()).get(key)
        if (!prepared) return false
        const representation = prepared.answer.for(req.headers['accept-encoding'])
        const sent = (prepared.sent[representation.encoding] ??= sentHeaders(
            prepared.common,
            representation,
        ))
        // The same test of a conditional GET as Koa's own `ctx.fresh`, which the app answers with.
        if (fresh(req.headers, { etag: representation.etag })) {
            res.writeHead(304, sent.notModifiedHeaders)
            res.end()
        } else {
            res.writeHead(200, sent.headers)
            res.end(representation.body)
        }
        return true
    }

    /** The app's outermost middleware: keeps the answers that the next identical request may reuse. */
    readonly keep = async (ctx: Context, next: Next) => {
        // The snapshot the request started with: a reload meanwhile must not file this answer under the new one.
        const catalog = this.currentCatalog()
        await next()
        const key = this.keyOf(ctx.req)
        const { encodedAnswer: answer, askedBefore } = ctx.state as EncodedState
        // A URL asked once (a cache-buster) is not worth its place: kept from the second ask on.
        if (askedBefore === false) return
        if (key === undefined || ctx.status !== 200 || !answer || !worthKeeping(ctx)) return
        if (
            String(ctx.response.get('Cache-Control')).includes('no-store') ||
            !variesOnlyByEncoding(String(ctx.response.get('Vary') ?? ''))
        )
            return
        const common = Object.fromEntries(
            Object.entries(ctx.response.headers).filter(
                ([name]) => !representationHeaders.has(name),
            ),
        )
        this.cacheFor(catalog).set(key, { answer: answer.keep(), common, sent: {} })
    }

    private keyOf(req: IncomingMessage) {
        // A Range request (audio seeking) is for `send` to answer from the file.
        if (
            req.method !== 'GET' ||
            this.sessionHeaders.some((header) => req.headers[header] !== undefined) ||
            req.headers.range !== undefined
        )
            return undefined
        return `${req.headers.host ?? ''}\n${req.url ?? ''}`
    }
}

const variesOnlyByEncoding = (vary: string) =>
    vary.split(',').every((name) => ['', 'accept-encoding'].includes(name.trim().toLowerCase()))

const sentHeaders = (
    common: OutgoingHttpHeaders,
    { encoding, body, etag }: Representation,
): Sent => {
    const headers: OutgoingHttpHeaders = { ...common, etag, 'content-length': body.length }
    if (encoding !== 'identity') headers['content-encoding'] = encoding
    return {
        headers,
        notModifiedHeaders: Object.fromEntries(
            Object.entries(headers).filter(([name]) => !bodyHeaders.has(name)),
        ),
    }
}
