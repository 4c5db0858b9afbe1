import { createHmac, timingSafeEqual } from 'node:crypto'

/**
 * The headers git hosts sign a webhook's body in, each an HMAC-SHA256 of the exact bytes with
 * the shared secret: GitHub, Gitea, Forgejo and Gogs send `X-Hub-Signature-256: sha256=<hex>`;
 * Gitea and Gogs also send the bare hex in their own header.
 */
const signatureHeaders = [
    { header: 'x-hub-signature-256', prefix: 'sha256=' },
    { header: 'x-gitea-signature', prefix: '' },
    { header: 'x-gogs-signature', prefix: '' },
] as const

export const webhookSignatureHeader = 'X-Hub-Signature-256'

/** `sha256=<hex>`: what a host holding `secret` sends with `body`. */
export const signWebhookBody = (secret: string, body: Buffer | string) =>
    `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`

/**
 * Why a webhook is refused, or undefined when one of its signature headers is the HMAC of its
 * body: compared in constant time, so the answer's timing says nothing about the secret.
 */
export const webhookRefusal = (
    secret: string,
    body: Buffer,
    headers: Record<string, string | string[] | undefined>,
): string | undefined => {
    const expected = createHmac('sha256', secret).update(body).digest()
    const given = signatureHeaders.flatMap(({ header, prefix }) => {
        const value = headers[header]
        return typeof value === 'string' && value.startsWith(prefix)
            ? [value.slice(prefix.length)]
            : []
    })
    if (!given.length)
        return `no signature header (${webhookSignatureHeader}: sha256=<HMAC-SHA256 of the body>)`
    const matches = given.some((hex) => {
        const bytes = Buffer.from(hex, 'hex')
        return /^[0-9a-f]{64}$/i.test(hex) && timingSafeEqual(bytes, expected)
    })
    return matches ? undefined : 'the signature does not match the body and the shared secret'
}
