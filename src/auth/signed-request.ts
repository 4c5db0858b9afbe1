import type { ServerAuthenticateRequest, ServerJoinRoomRequest } from '@sonolus/core'
import type { ValidateFunction } from 'ajv'
import { createHash, webcrypto } from 'node:crypto'
import { precompiledValidators } from '../util/precompiled-validators.js'
import { Refusal, refuse } from '../util/refusal.js'
import type { AcceptedAddresses } from './addresses.js'
import { signedShape, signedShapeExport } from './signed-shape.js'
import { signatureAlgorithm } from './verify-key.js'

export type SignedRequestKind = ServerAuthenticateRequest['type'] | ServerJoinRoomRequest['type']

/** A request whose every check passed: its profile can be trusted. */
export type VerifiedRequest = {
    body: ServerAuthenticateRequest | ServerJoinRoomRequest
    raw: Buffer
    signature: string
}

/**
 * Precompiled by the build. Run from the sources, compiled at the first signed request: loading
 * ajv and compiling cost a start a third of a second, and, at the first sign-in, one turn of the
 * event loop 60–100 ms. The shape is Shelf's own constant, so ajv's meta-schema is neither
 * compiled nor checked against: that was most of the compile (68 of 82 ms).
 */
let shapeValidator: Promise<ValidateFunction> | undefined
const validShape = () => {
    const precompiled = precompiledValidators?.(signedShapeExport)
    return (shapeValidator ??= precompiled
        ? Promise.resolve(precompiled)
        : import('ajv').then(({ Ajv }) =>
              new Ajv({ allErrors: false, meta: false, validateSchema: false }).compile(
                  signedShape,
              ),
          ))
}

/**
 * The checks of §5.2 on a signed request (E2, E7), in the toolkit's order: shape, kind, address,
 * room, time, signature. Only a request that passes all of them is trusted with its profile.
 */
export class SignedRequestVerifier {
    /**
     * Bodies accepted within the window, by digest: a captured request cannot be sent a second
     * time. Keyed by the body, not the signature, since an ECDSA signature has a second valid form.
     */
    private readonly seen = new Map<string, number>()

    constructor(
        private readonly key: webcrypto.CryptoKey,
        private readonly addresses: AcceptedAddresses,
        private readonly windowMs: number,
    ) {}

    /** `body` is `raw` parsed; the signature is checked over `raw` itself, never a re-serialization. */
    async verify(
        raw: Buffer,
        body: unknown,
        signatureHeader: string | undefined,
        expected: { type: SignedRequestKind; room?: string },
        now = Date.now(),
    ): Promise<VerifiedRequest> {
        const isValidShape = await validShape()
        if (!isValidShape(body)) {
            const issue = isValidShape.errors?.[0]
            throw new Refusal(
                'invalid',
                `the body is not a signed ${expected.type} request: ${issue ? `${issue.instancePath || 'the body'} ${issue.message}` : 'wrong shape'}`,
            )
        }
        const request = body as ServerJoinRoomRequest
        if (request.type !== expected.type)
            refuse('unauthorized', `type must be "${expected.type}", got "${request.type}"`)
        if (!this.addresses.accepts(request.address))
            refuse('unauthorized', this.addresses.explainRefusal(request.address))
        if (expected.room !== undefined && request.room !== expected.room) {
            refuse(
                'unauthorized',
                `room must be the room in the path, "${expected.room}", got ${request.room === undefined ? 'none' : `"${request.room}"`}`,
            )
        }
        const age = now - request.time
        if (age > this.windowMs)
            refuse(
                'unauthorized',
                `time is ${Math.round(age / 1000)} s old; signed requests are accepted for ${this.windowMs / 1000} s (is a clock wrong?)`,
            )
        if (-age > this.windowMs)
            refuse(
                'unauthorized',
                `time is ${Math.round(-age / 1000)} s ahead of this server's clock; at most ${this.windowMs / 1000} s is accepted`,
            )
        if (!signatureHeader) refuse('unauthorized', 'the signature header is missing')
        const signature = signatureHeader!
        if (!(await this.isSignedBy(raw, signature)))
            refuse('unauthorized', "the signature does not match the body and the app's key")
        this.forgetExpired(now)
        const digest = createHash('sha256').update(raw).digest('hex')
        if (this.seen.has(digest))
            refuse('unauthorized', 'this signed request was already used; sign a new one')
        this.seen.set(digest, request.time + this.windowMs)
        return { body: request, raw, signature }
    }

    private async isSignedBy(raw: Buffer, header: string) {
        const signature = Buffer.from(header, 'base64')
        try {
            return await webcrypto.subtle.verify(
                { name: signatureAlgorithm.name, hash: 'SHA-256' },
                this.key,
                signature,
                raw,
            )
        } catch {
            return false
        }
    }

    private forgetExpired(now: number) {
        for (const [digest, expires] of this.seen) if (expires < now) this.seen.delete(digest)
    }
}
