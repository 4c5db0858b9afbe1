/** Where in a text the error of `JSON.parse` points, when its message says (`… at position 42`). */
export const jsonErrorPosition = (text: string, error: Error) => {
    const match = /position (\d+)/.exec(error.message)
    if (!match) return {}
    const before = text.slice(0, Number(match[1])).split('\n')
    return { line: before.length, column: (before.at(-1)?.length ?? 0) + 1 }
}
