import { timingSafeEqual } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import type { ShelfOptions } from '../config.js'

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

/** What decides who the owner is: the token, and whether the server is public (`--address`) or behind a proxy. */
export type OwnerAccess = Pick<ShelfOptions, 'ownerToken' | 'address' | 'trustProxy'>

/**
 * Whether a request comes from the server's owner, who may see what the content folder holds
 * beyond what is served (its problems: file paths and messages). The one rule for every such
 * page: a request that carries the owner token (`--owner-token`) as `Authorization: Bearer
 * <token>`, or, on a server that is neither public (`--address`) nor behind a proxy
 * (`--trust-proxy`), a request from this machine that no proxy forwarded. A public server may sit
 * behind a proxy that adds no header at all, so there loopback proves nothing.
 */
export const isOwnerRequest = (request: IncomingMessage, access: OwnerAccess) => {
    const authorization = request.headers.authorization
    if (
        access.ownerToken &&
        authorization?.startsWith('Bearer ') &&
        sameSecret(authorization.slice('Bearer '.length), access.ownerToken)
    )
        return true
    return (
        access.address === undefined &&
        !access.trustProxy &&
        isLoopback(request.socket.remoteAddress) &&
        !forwardingHeaders.some((header) => header in request.headers)
    )
}

/** What a visitor who is not the owner is told. */
export const ownerOnlyMessage =
    'the problems of the content are shown to the server owner only: send the owner token (--owner-token) as "Authorization: Bearer <token>" (or, on a server without --address or --trust-proxy, ask from the server itself at http://localhost)'
