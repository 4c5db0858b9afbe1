import type { IncomingMessage, ServerResponse } from 'node:http'
import send from 'send'

/** What the client reads when the file cannot be sent: as `{ "message": … }`. */
export type SendFailures = { missing: string; unreadable: string }

/**
 * Streams a file with `send` (ranges, conditional requests) into a response that Koa has let go
 * of (`ctx.respond = false`). Settles once the answer is over: sent whole, refused with a JSON
 * message, or cut short by a client that went away (then `send` stops reading and never ends).
 */
export const sendFile = (
    request: IncomingMessage,
    response: ServerResponse,
    urlPath: string,
    options: send.SendOptions,
    failures: SendFailures,
) =>
    new Promise<void>((resolve, reject) => {
        send(request, urlPath, options)
            .on('error', (error: Error & { status?: number }) => {
                response.statusCode = error.status ?? 500
                response.setHeader('Content-Type', 'application/json; charset=utf-8')
                const message = error.status === 404 ? failures.missing : failures.unreadable
                response.end(JSON.stringify({ message }))
                resolve()
            })
            .on('end', resolve)
            .pipe(response)
            .on('error', reject)
        response.once('close', resolve)
    })
