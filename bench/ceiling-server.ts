/**
 * The ceiling of bench/run.ts: a bare node:http server that answers each benchmarked URL with
 * the exact status, headers and bytes Shelf answered it with (compressed ones replayed as they
 * are, per Accept-Encoding), looked up in a map built once.
 * No routing, no middleware, no serialization, no hashing: what is left is Node's own HTTP
 * parsing and writing, the most any Node server can do on this machine.
 *
 * Run as a child (`fork`) so it has a process of its own, as Shelf does: the parent sends the
 * answers, the child replies `{ port }` once it listens on 127.0.0.1.
 */
import { createServer, type OutgoingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'
import { UNCACHED_PARAMETER } from './search-queries.js'

/** One answer as it travels to the child (the body as base64, since IPC carries JSON). */
export interface CeilingAnswer {
    /** Path and query, as the request line carries them. */
    url: string
    /** The request's `If-None-Match`, or '' for a request without it. */
    ifNoneMatch: string
    /** The request's `Accept-Encoding`, or '': the same URL is answered in the encoding Shelf answered it in. */
    acceptEncoding: string
    status: number
    headers: OutgoingHttpHeaders
    bodyBase64: string
}

interface Prepared {
    status: number
    headers: OutgoingHttpHeaders
    body: Buffer
}

const uncached = new RegExp(`&${UNCACHED_PARAMETER}=\\d+$`)

/** The answer's key; the number that keeps Shelf from answering a quick search from its cache is left out. */
const keyOf = (url: string, ifNoneMatch: string, acceptEncoding: string) =>
    `${ifNoneMatch}\n${acceptEncoding}\n${url.replace(uncached, '')}`

function serve(answers: CeilingAnswer[]): void {
    const table = new Map<string, Prepared>()
    for (const answer of answers) {
        table.set(keyOf(answer.url, answer.ifNoneMatch, answer.acceptEncoding), {
            status: answer.status,
            headers: answer.headers,
            body: Buffer.from(answer.bodyBase64, 'base64'),
        })
    }
    const server = createServer((req, res) => {
        const found = table.get(
            keyOf(
                req.url ?? '',
                req.headers['if-none-match'] ?? '',
                req.headers['accept-encoding'] ?? '',
            ),
        )
        if (found === undefined) {
            res.writeHead(404, { 'content-type': 'text/plain' })
            res.end('not a benchmarked URL')
            return
        }
        res.writeHead(found.status, found.headers)
        res.end(found.body)
    })
    server.listen(0, '127.0.0.1', () => {
        process.send?.({ port: (server.address() as AddressInfo).port })
    })
    process.once('disconnect', () => {
        server.close()
        server.closeAllConnections()
    })
}

process.once('message', (message) => serve(message as CeilingAnswer[]))
