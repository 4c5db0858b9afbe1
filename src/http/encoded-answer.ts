import etagOf from 'etag'
import { LRUCache } from 'lru-cache'
import Negotiator from 'negotiator'
import { brotliCompressSync, constants, gzipSync } from 'node:zlib'

export type Encoding = 'br' | 'gzip' | 'identity'

/** One representation of an answer: the bytes sent, their strong validator and their encoding. */
export type Representation = { encoding: Encoding; body: Buffer; etag: string }

/**
 * Levels chosen by measurement on 80–120 KB list pages (docs/performance.md). An answer kept for
 * many requests gets brotli quality 5 (0.35 ms, 5.9% of the bytes; quality 9 and up cost 5–22 ms
 * for 1–10% less) and gzip level 6 (0.25 ms, 7.1%; levels 7–9 save nothing more). An answer made
 * for one request (a typed search) is compressed on its way out every time, so it gets brotli
 * quality 1: 0.08 ms for 6.8% of the bytes of an 82 KB page (quality 2: 0.135 ms for 6.6%; gzip
 * level 1: 0.15 ms for 10.6%), which at 100,000 levels is a tenth of a search's whole cost.
 */
const levels = { kept: { br: 5, gzip: 6 }, once: { br: 1, gzip: 1 } }

const compress = (
    encoding: Exclude<Encoding, 'identity'>,
    body: Buffer,
    effort: keyof typeof levels,
) =>
    encoding === 'br'
        ? brotliCompressSync(body, {
              params: {
                  [constants.BROTLI_PARAM_QUALITY]: levels[effort].br,
                  [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
                  [constants.BROTLI_PARAM_SIZE_HINT]: body.length,
                  // A window no larger than the answer: the default (4 MiB) is memory V8 is told of
                  // on every call, and at a few hundred searches a second it made V8 collect the
                  // whole heap again and again (quick-search p99 at 100,000 levels 166 ms).
                  [constants.BROTLI_PARAM_LGWIN]: Math.min(
                      Math.max(Math.ceil(Math.log2(body.length + 1)), 16),
                      22,
                  ),
              },
          })
        : gzipSync(body, { level: levels[effort].gzip })

/**
 * Representations compressed for one request, by their ETag: the same bytes (a typed search's
 * page, asked again by another player or under another cache-buster) get the same ETag, and so
 * the bytes compressed the first time. A request still finds its answer and its ETag; only the
 * compressing (a fifth of a compressed quick search's CPU) is saved. Bounded in bytes: a
 * compressed page is a few KB, so this holds a thousand and more.
 */
const compressedOnce = new LRUCache<string, Representation>({
    maxSize: 8 * 1024 * 1024,
    sizeCalculation: ({ body, etag }) => body.length + etag.length + 160,
})

/** Smaller answers gain less from compression than its headers and work cost. */
const minimumBytes = 1024

/** What is text and worth compressing: JSON answers and pages. Resources are sent as stored. */
export const isCompressibleType = (type: string) =>
    type.startsWith('application/json') || type.startsWith('text/')

/** The encoding a request gets: brotli, else gzip, else the bytes as they are, by the client's weights. */
const negotiated = new Map<string, Encoding>()
const maxNegotiated = 256

export const encodingFor = (acceptEncoding: string | undefined): Encoding => {
    if (!acceptEncoding) return 'identity'
    let encoding = negotiated.get(acceptEncoding)
    if (encoding === undefined) {
        const negotiator = new Negotiator({ headers: { 'accept-encoding': acceptEncoding } })
        // The preferred order breaks ties between equal weights (`gzip, deflate, br` gets br).
        const choose = negotiator.encoding as (
            available: string[],
            options: { preferred: string[] },
        ) => string | undefined
        encoding =
            (choose.call(negotiator, ['br', 'gzip', 'identity'], {
                preferred: ['br', 'gzip', 'identity'],
            }) as Encoding | undefined) ?? 'identity'
        // Clients send a handful of distinct headers; any number more must not grow memory.
        if (negotiated.size >= maxNegotiated) negotiated.clear()
        negotiated.set(acceptEncoding, encoding)
    }
    return encoding
}

/**
 * `"abc"` → `"abc-br"`, or `"abc-br-fast"` compressed for one request: each encoding's bytes, and
 * each effort's, get a validator of their own (W/ kept). A list page and a search whose words trim
 * to nothing hold the same bytes, kept and made once: one ETag for both compressions would tell a
 * cache that two different bodies are the same.
 */
const encodedEtag = (etag: string, encoding: Encoding, effort: keyof typeof levels) =>
    encoding === 'identity'
        ? etag
        : `${etag.slice(0, -1)}-${encoding}${effort === 'once' ? '-fast' : ''}"`

/**
 * Where the parts of an answer (a list page's items' stored JSON) are joined to be hashed and
 * compressed, rather than in a buffer of their own, which a typed search asked compressed never
 * sends. V8 counts a new buffer's bytes against the old generation's limit until a collection
 * frees it: at 10,000 levels, with about 40 MB to spare over an old generation of 50 MB grown by
 * half (src/cli/main.ts), 95 KB a search at 800 searches a second began a full collection every
 * 0.3 s (a third of the CPU of the compressed quick-search mix, and its p99; docs/performance.md).
 */
let scratch = Buffer.allocUnsafeSlow(0)
/** Larger answers are joined in a buffer of their own: no buffer that size is kept for them. */
const scratchMaxBytes = 1024 * 1024

/**
 * The parts copied into `into` one after another. Not `Buffer.concat`: its copy, part by part
 * through checks of its own, cost 0.077 ms for a page of 45 parts (96 KB) against 0.006 ms here.
 */
const joinInto = (parts: readonly Buffer[], into: Buffer) => {
    let at = 0
    for (const part of parts) at += part.copy(into, at)
    return into
}

/** The parts in one buffer of their own. */
const joined = (parts: readonly Buffer[], length: number) =>
    joinInto(parts, Buffer.allocUnsafeSlow(length))

/** The parts in one buffer, good until the next call: for a use that ends before it returns. */
const joinedForNow = (parts: readonly Buffer[], length: number) => {
    if (length > scratchMaxBytes) return joined(parts, length)
    if (scratch.length < length)
        scratch = Buffer.allocUnsafeSlow(
            Math.min(scratchMaxBytes, 2 ** Math.ceil(Math.log2(length))),
        )
    return joinInto(parts, scratch).subarray(0, length)
}

/**
 * A text answer with the representations it is sent in: its bytes as they are, and brotli and
 * gzip made from them on the first request that asks for each. An answer kept for a snapshot
 * (the response cache, the prepared answers) is therefore compressed at most once per encoding,
 * and an answer asked for once (a client's cache-buster, a player's own view) only in the
 * encoding it was asked in. An answer made of parts is put in one buffer of its own only when it
 * is sent as it is or kept.
 */
export class EncodedAnswer {
    private readonly representations: Partial<Record<Encoding, Representation>> = {}
    /** Until a cache keeps the answer, it is compressed for one request: quickly rather than small. */
    private effort: keyof typeof levels = 'once'
    /** The answer's bytes in parts, until its identity representation is made. */
    private parts: readonly Buffer[] | undefined
    /** Bytes of the answer as it is. */
    private readonly length: number
    private readonly etag: string
    /**
     * What a route answers with as `ctx.body`: the answer's bytes, or for an answer of parts an
     * empty stand-in, which encode-answers.ts replaces by the representation asked for. (An object
     * as the body would have Koa's setter test it against the web's streams and `Response`, whose
     * first use loads undici: 35 ms of the first list page after a start.)
     */
    readonly body: Buffer

    constructor(
        body: Buffer | readonly Buffer[],
        /** Its validator; by default the ETag of its bytes. */
        etag: string | undefined,
        /** Whether the answer is text: only then is it sent compressed, and does it vary by Accept-Encoding. */
        readonly compressible: boolean,
    ) {
        if (Buffer.isBuffer(body)) {
            this.length = body.length
            this.etag = etag ?? etagOf(body)
            this.representations.identity = { encoding: 'identity', body, etag: this.etag }
            this.body = body
        } else {
            this.body = Buffer.alloc(0)
            this.parts = body
            this.length = body.reduce((sum, part) => sum + part.length, 0)
            this.etag = etag ?? etagOf(joinedForNow(body, this.length))
        }
    }

    get identity(): Representation {
        let identity = this.representations.identity
        if (!identity) {
            const body = joined(this.parts!, this.length)
            identity = { encoding: 'identity', body, etag: this.etag }
            this.representations.identity = identity
            this.parts = undefined
        }
        return identity
    }

    /** Whether a response's body is this answer: its `body`, or its bytes as it is. */
    holds(body: unknown): boolean {
        return body === this.body || body === this.representations.identity?.body
    }

    /** The representation for a request with this Accept-Encoding. */
    for(acceptEncoding: string | undefined): Representation {
        return this.in(
            this.compressible && this.length >= minimumBytes
                ? encodingFor(acceptEncoding)
                : 'identity',
        )
    }

    in(encoding: Encoding): Representation {
        if (encoding === 'identity') return this.identity
        let representation = this.representations[encoding]
        if (!representation) {
            const etag = encodedEtag(this.etag, encoding, this.effort)
            const once = this.effort === 'once'
            representation = once ? compressedOnce.get(etag) : undefined
            if (!representation) {
                const bytes =
                    this.representations.identity?.body ?? joinedForNow(this.parts!, this.length)
                representation = { encoding, body: compress(encoding, bytes, this.effort), etag }
                if (once) compressedOnce.set(etag, representation)
            }
            this.representations[encoding] = representation
        }
        return representation
    }

    /** Marks the answer as kept by a cache: encodings made from now on serve many requests, so small rather than quick. */
    keep(): this {
        this.effort = 'kept'
        return this
    }

    /**
     * What a cache counts for the answer before its compressed representations are made: its
     * bytes, and a quarter more for brotli and gzip (JSON and pages compress to a tenth or less).
     */
    get keptBytes(): number {
        const { length } = this
        return this.compressible && length >= minimumBytes ? Math.ceil(length * 1.25) : length
    }
}
