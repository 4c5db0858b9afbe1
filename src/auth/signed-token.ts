import { createHmac, timingSafeEqual } from 'node:crypto'

/** Why a token was refused, in words a player can be shown. */
export class TokenError extends Error {}

/**
 * Stateless tokens: `v1.<payload>.<mac>`, where the payload is base64url JSON with an `exp`
 * (ms since the epoch) and the MAC is HMAC-SHA256 over `shelf/<purpose>/v1.<payload>`. The
 * purpose keeps a token made for one use (a room session, say) from passing for another.
 * Anyone holding the secret can verify them, which is what lets replicas and the multiplayer
 * server trust each other's tokens without sharing a store.
 */
export class TokenSigner {
    constructor(private readonly secret: Buffer) {}

    sign(purpose: string, payload: Record<string, unknown> & { exp: number }) {
        const encoded = Buffer.from(JSON.stringify(payload)).toString('base64url')
        return `v1.${encoded}.${this.mac(purpose, encoded).toString('base64url')}`
    }

    /** The payload of a token this secret signed for this purpose and that has not expired. */
    verify<T extends { exp: number }>(purpose: string, token: string, now = Date.now()): T {
        const [version, encoded, mac, ...rest] = token.split('.')
        if (version !== 'v1' || !encoded || !mac || rest.length)
            throw new TokenError('is not a token this server issues')
        const expected = this.mac(purpose, encoded)
        const given = Buffer.from(mac, 'base64url')
        if (given.length !== expected.length || !timingSafeEqual(given, expected))
            throw new TokenError('was not signed by this server, or was changed')
        const payload = JSON.parse(Buffer.from(encoded, 'base64url').toString('utf8')) as T
        if (!(payload.exp > now))
            throw new TokenError(`expired at ${new Date(payload.exp).toISOString()}`)
        return payload
    }

    private mac(purpose: string, encoded: string) {
        return createHmac('sha256', this.secret).update(`shelf/${purpose}/v1.${encoded}`).digest()
    }
}
