import type { IncomingMessage } from 'node:http'

/**
 * Who may read the problems of the content: its owner, that is a request from this machine.
 * One function, so that the server-wide rule of who sees `/_shelf/problems` can take its place.
 */
export const mayReadProblems = (req: IncomingMessage) => {
    const address = req.socket.remoteAddress ?? ''
    return address === '::1' || /^(::ffff:)?127\./.test(address)
}
