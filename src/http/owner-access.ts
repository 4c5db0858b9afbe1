import { timingSafeEqual } from 'node:crypto'
import type { IncomingMessage } from 'node:http'

/** Headers a reverse proxy adds: behind one, every request arrives from loopback. */
const forwardingHeaders = ['forwarded', 'x-forwarded-for', 'x-real-ip']

const isLoopback = (address: string | undefined) =>
    address !== undefined &&
    (/^127\./.test(address) || address === '::1' || /^::ffff:127\./.test(address))

const sameSecret = (given: string, expected: string) => {
    const a = Buffer.from(given)
    const b = Buffer.from(expected)
    return a.length === b.length && timingSafeEqual(a, b)
}

/**
 * Whether a request comes from the server's owner, who may see what the content folder holds
 * beyond what is served (its problems: file paths and messages). The one rule for every such
 * page: a request from this machine that no proxy forwarded, or one that carries the owner
 * token (`--owner-token`) as `Authorization: Bearer <token>`.
 */
export const isOwnerRequest = (request: IncomingMessage, ownerToken: string | undefined) => {
    const authorization = request.headers.authorization
    if (
        ownerToken &&
        authorization?.startsWith('Bearer ') &&
        sameSecret(authorization.slice('Bearer '.length), ownerToken)
    )
        return true
    return (
        isLoopback(request.socket.remoteAddress) &&
        !forwardingHeaders.some((header) => header in request.headers)
    )
}

/** What a visitor who is not the owner is told. */
export const ownerOnlyMessage =
    'the problems of the content are shown to the server owner only: ask from the server itself (http://localhost), or send the owner token (--owner-token) as "Authorization: Bearer <token>"'
