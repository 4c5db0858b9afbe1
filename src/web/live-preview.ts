import { PassThrough } from 'node:stream'

/** How often an idle stream says it is alive, so proxies and browsers keep it open. */
const keepAliveMs = 25_000

/**
 * The server-sent events of the live preview: one stream per open page; after each reload every
 * stream hears `change`, and the page fetches itself again. A stream ends when its page closes it
 * (or the server closes its connections).
 */
export class LivePreview {
    private readonly streams = new Set<PassThrough>()
    private readonly timer: NodeJS.Timeout

    constructor() {
        this.timer = setInterval(() => this.write(': alive\n\n'), keepAliveMs).unref()
    }

    /** A new stream for one page, removed from the set when its connection closes. */
    open(onClose: (listener: () => void) => void): PassThrough {
        const stream = new PassThrough()
        this.streams.add(stream)
        // The browser retries after this many milliseconds when the server restarts.
        stream.write('retry: 1000\n\n')
        onClose(() => {
            this.streams.delete(stream)
            stream.end()
        })
        return stream
    }

    /** Tells every open page that the content changed. */
    changed(version: number) {
        this.write(`event: change\ndata: ${version}\n\n`)
    }

    get openStreams() {
        return this.streams.size
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
