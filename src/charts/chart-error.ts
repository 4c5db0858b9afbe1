/**
 * Why an engine package or a chart cannot be used, in words for the content's owner; where the
 * chart says (a JSON syntax error), the line and column. The loader reports it at the file.
 */
export class ChartError extends Error {
    constructor(
        message: string,
        readonly position: { line?: number; column?: number; field?: string } = {},
    ) {
        super(message)
    }
}
