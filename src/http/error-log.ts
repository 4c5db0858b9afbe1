import { debuglog } from 'node:util'

/** Printed only with `NODE_DEBUG=shelf`. */
const debug = debuglog('shelf')

/** What Node reports when the client closed the connection before the answer was written. */
const clientGoneCodes = new Set([
    'ERR_STREAM_PREMATURE_CLOSE',
    'EPIPE',
    'ECONNRESET',
    'ECONNABORTED',
    'ERR_STREAM_DESTROYED',
])

/** A player leaving a page, a seek in the audio, a timeout in the app: normal traffic, not a server error. */
export const isClientGone = (error: unknown) =>
    clientGoneCodes.has(String((error as { code?: unknown } | undefined)?.code))

/**
 * How the HTTP side reports an error it could not answer with a client status: once, with its
 * stack and cause (console.error prints both). A client gone mid-answer is at most a debug line.
 */
export const reportError = (error: unknown, where = '') => {
    if (isClientGone(error)) {
        debug('client went away%s: %s', where && ` during ${where}`, (error as Error).message)
        return
    }
    console.error(`shelf: error${where && ` during ${where}`}:`, error)
}
