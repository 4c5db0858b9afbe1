import type { IncomingMessage, Server, ServerOptions, ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import type { ClientTimeouts } from '../config.js'

/** Node's server options for these timeouts; the check runs often enough to keep them to the second. */
export const clientTimeoutOptions = ({ headersMs, requestMs }: ClientTimeouts): ServerOptions => ({
    headersTimeout: headersMs,
    requestTimeout: requestMs,
    connectionsCheckingInterval: Math.min(1_000, headersMs / 2),
})

/**
 * Closes a connection with nothing moving either way for `idleMs`, except one whose request has
 * arrived whole and waits for its answer: that wait is the server's (a write queued behind fifty
 * others' commits on a busy machine), and cutting it would lose the answer of a write that is
 * done. Once the answer starts, a client that stops reading it is cut as before.
 */
export const closeIdleConnections = (server: Server, idleMs: number) => {
    const answering = new WeakMap<Socket, { request: IncomingMessage; response: ServerResponse }>()
    server.setTimeout(idleMs)
    server.on('request', (request: IncomingMessage, response: ServerResponse) => {
        const { socket } = request
        answering.set(socket, { request, response })
        response.once('close', () => {
            if (answering.get(socket)?.response === response) answering.delete(socket)
        })
    })
    server.on('timeout', (socket: Socket) => {
        const waiting = answering.get(socket)
        if (waiting?.request.complete && !waiting.response.headersSent) return
        socket.destroy()
    })
}
