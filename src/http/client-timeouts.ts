import type { ServerOptions } from 'node:http'

/** How long Shelf waits on a client, deliberately rather than by Node's defaults. */
export type ClientTimeouts = {
    /** For a request's headers to arrive: a browser or the app sends them at once. */
    headersMs: number
    /** For a whole request to arrive: an upload of 20 MiB over a slow phone link fits. */
    requestMs: number
    /** A connection with nothing moving either way is closed after this. */
    idleMs: number
}

export const defaultClientTimeouts: ClientTimeouts = {
    headersMs: 10_000,
    requestMs: 120_000,
    idleMs: 30_000,
}

/** Node's server options for these timeouts; the check runs often enough to keep them to the second. */
export const clientTimeoutOptions = ({ headersMs, requestMs }: ClientTimeouts): ServerOptions => ({
    headersTimeout: headersMs,
    requestTimeout: requestMs,
    connectionsCheckingInterval: Math.min(1_000, headersMs / 2),
})
