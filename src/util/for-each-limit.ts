/** Runs `task` over what `inputs` yields, at most `limit` at a time, taking the next input only when a task ends. */
export const forEachLimit = async <T>(inputs: Iterable<T>, limit: number, task: (input: T) => Promise<void>) => {
    const iterator = inputs[Symbol.iterator]()
    const worker = async () => {
        for (let next = iterator.next(); !next.done; next = iterator.next()) await task(next.value)
    }
    await Promise.all(Array.from({ length: limit }, worker))
}
