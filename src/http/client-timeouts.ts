import type { ServerOptions } from 'node:http'
import type { ClientTimeouts } from '../config.js'

/** Node's server options for these timeouts; the check runs often enough to keep them to the second. */
export const clientTimeoutOptions = ({ headersMs, requestMs }: ClientTimeouts): ServerOptions => ({
    headersTimeout: headersMs,
    requestTimeout: requestMs,
    connectionsCheckingInterval: Math.min(1_000, headersMs / 2),
})
