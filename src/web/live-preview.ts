import type { ServerResponse } from 'node:http'

/** How often an idle stream says it is alive, so proxies and browsers keep it open. */
const keepAliveMs = 25_000

/**
 * The server-sent events of the live preview: one stream per open page; after each reload every
 * stream hears `change`, and the page fetches itself again. A stream is written straight to its
 * response and forgotten when its page closes the connection (or the server closes them all).
 */
export class LivePreview {
    private readonly streams = new Set<ServerResponse>()
    private readonly timer: NodeJS.Timeout

    constructor() {
        this.timer = setInterval(() => this.write(': alive\n\n'), keepAliveMs).unref()
    }

    /** Starts the event stream of one page on its response, whose other headers are set. */
    open(response: ServerResponse) {
        response.writeHead(200, {
            'Content-Type': 'text/event-stream',
            'Cache-Control': 'no-store',
            'X-Accel-Buffering': 'no',
        })
        // The browser connects again after this many milliseconds when the server restarts.
        response.write('retry: 1000\n\n')
        this.streams.add(response)
        response.once('close', () => this.streams.delete(response))
    }

    /** Tells every open page that the content changed. */
    changed(version: number) {
        this.write(`event: change\ndata: ${version}\n\n`)
    }

    close() {
        clearInterval(this.timer)
        for (const stream of this.streams) stream.end()
        this.streams.clear()
    }

    private write(text: string) {
        for (const stream of this.streams) stream.write(text)
    }
}
