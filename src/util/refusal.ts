/**
 * What a domain folder (writes, rooms, auth) answers when it will not do what was asked, in its
 * own words: the kind says why, and only the HTTP edge turns a kind into a status. The message is
 * safe to show to the player.
 */
export type RefusalKind =
    | 'invalid'
    | 'unauthorized'
    | 'forbidden'
    | 'not-found'
    | 'conflict'
    | 'too-large'
    | 'too-many'
    /** Something the server needs is away for now (the shared state): asking again later may work. */
    | 'unavailable'

export class Refusal extends Error {
    constructor(
        readonly kind: RefusalKind,
        message: string,
        /** For `too-many` and `unavailable`: when asking again may succeed. */
        readonly retryAfterSeconds?: number,
    ) {
        super(message)
    }
}

/** Throws a refusal where an expression is expected: `found ?? refuse('not-found', …)`. */
export const refuse = (kind: RefusalKind, message: string): never => {
    throw new Refusal(kind, message)
}
