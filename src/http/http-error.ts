/** An answer other than 200 that the client caused; its message is safe to show to the player. */
export class HttpError extends Error {
    constructor(
        readonly status: number,
        message: string,
    ) {
        super(message)
    }
}

export const notFound = (message: string): never => {
    throw new HttpError(404, message)
}
