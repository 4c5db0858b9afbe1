import type { Context, Next } from 'koa'
import type { IncomingMessage } from 'node:http'

/** How long a refused body is read and dropped after its answer. */
const drainMs = 10_000
/** Past this many bytes of a refused body, the connection is closed (gracefully: the answer first). */
const drainBytes = 16 * 1024 * 1024

/**
 * A request refused before its body was read (an upload past the limit, a body too large) is
 * answered, and then its body is read and dropped, for a while and up to a size: a client sends
 * the whole body before it reads the answer, and a socket closed on unread bytes resets the
 * connection, taking the answer with it. A body drained to its end leaves the connection open
 * for the next request; a larger one has the connection ended after the answer, and still
 * drained until the client stops sending or the time is up.
 */
export const drainUnreadBody = async (ctx: Context, next: Next) => {
    try {
        await next()
    } finally {
        const { req, res } = ctx
        if (hasUnreadBody(req)) {
            // Node would close at once after the answer (a reset, with bytes unread): the drain closes it.
            ctx.remove('Connection')
            res.once('finish', () => drain(req))
        }
    }
}

const hasUnreadBody = (req: IncomingMessage) =>
    !req.complete &&
    (req.headers['transfer-encoding'] !== undefined ||
        Number(req.headers['content-length'] ?? 0) > 0)

const drain = (req: IncomingMessage) => {
    if (req.complete || req.destroyed) return
    const { socket } = req
    const timer = setTimeout(() => socket.destroy(), drainMs).unref()
    let received = 0
    req.unpipe()
    req.on('data', (chunk: Buffer) => {
        received += chunk.length
        if (received > drainBytes && !socket.writableEnded) socket.end()
    })
    req.once('end', () => clearTimeout(timer))
    socket.once('close', () => clearTimeout(timer))
    req.resume()
}
