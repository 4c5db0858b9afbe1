/**
 * Runs `task` over what `inputs` yields, at most `limit` at a time, taking the next input only
 * when a task ends. After a failure no new task starts, and once the tasks under way have ended
 * the first error is thrown: nothing is left running behind the caller's back.
 */
export const forEachLimit = async <T>(
    inputs: Iterable<T>,
    limit: number,
    task: (input: T) => Promise<void>,
) => {
    const iterator = inputs[Symbol.iterator]()
    let failed = false
    const worker = async () => {
        try {
            for (let next = iterator.next(); !failed && !next.done; next = iterator.next())
                await task(next.value)
        } catch (error) {
            failed = true
            throw error
        }
    }
    const outcomes = await Promise.allSettled(Array.from({ length: limit }, worker))
    const failure = outcomes.find((outcome) => outcome.status === 'rejected')
    if (failure) throw failure.reason
}
