import type { LineCounter, YAMLError } from 'yaml'

/** A YAML syntax error as a person reads it: the line at fault and what to do there. */
export type ExplainedError = { message: string; line: number; column: number }

/**
 * Turns the parser's first error into the line an owner should look at, in their words. The
 * parser reports where it gave up, which for an indentation mistake is often the line above the
 * one at fault; the common mistakes are recognised and the rest keep the parser's message.
 */
export const explainYamlError = (
    errors: readonly YAMLError[],
    text: string,
    lineCounter: LineCounter,
): ExplainedError => {
    const [error] = errors as [YAMLError, ...YAMLError[]]
    const at = (offset: number) => {
        const { line, col } = lineCounter.linePos(offset)
        return { line, column: col }
    }
    const start = at(error.pos[0])
    const lines = text.split(/\r?\n/)
    switch (error.code) {
        case 'BLOCK_AS_IMPLICIT_KEY': {
            // `key: value` followed by a line indented deeper: the parser reads the value as a
            // key of a map it cannot nest there, and reports the value's line.
            const spill = errors.find(
                (other) =>
                    other.code === 'MULTILINE_IMPLICIT_KEY' && at(other.pos[1]).line > start.line,
            )
            if (spill) {
                const line =
                    start.line + 1 + lines.slice(start.line).findIndex((next) => next.trim())
                return {
                    line,
                    column: 1,
                    message: `line ${line} is indented more than line ${start.line} ("${lines[start.line - 1]!.trim()}"), so it reads as part of that value: start it at the same column as the field above, or, to put it inside that field, leave nothing after the colon on line ${start.line}`,
                }
            }
            return {
                ...start,
                message: 'a value holding ": " must be in quotes, like title: "Part 1: Dawn"',
            }
        }
        case 'BAD_INDENT':
            if (/mapping items must start at the same column/.test(error.message))
                return {
                    ...start,
                    message: `line ${start.line} is indented differently from the fields before it: fields of one map start at the same column`,
                }
            if (/Flow sequence/.test(error.message))
                return {
                    ...start,
                    message: `a list opened with "[" before line ${start.line} is not closed: add "]" at its end`,
                }
            break
        case 'TAB_AS_INDENT':
            return {
                ...start,
                message: `line ${start.line} is indented with a tab: YAML indents with spaces only`,
            }
        case 'MULTILINE_IMPLICIT_KEY':
            return {
                ...start,
                message: `line ${start.line} is not a field: write "name: value", with a space after the colon`,
            }
        case 'MISSING_CHAR':
            if (/quote/.test(error.message))
                return {
                    ...start,
                    message: `a quoted text is not closed before line ${start.line}: add the closing quote`,
                }
            break
    }
    return { ...start, message: firstLine(error.message) }
}

const firstLine = (message: string) => message.split('\n')[0] ?? message
