/** Runs `task` over `inputs` with at most `limit` in flight, keeping the results in input order. */
export const mapLimit = async <T, R>(
    inputs: readonly T[],
    limit: number,
    task: (input: T) => Promise<R>,
): Promise<R[]> => {
    const results = new Array<R>(inputs.length)
    let next = 0
    const worker = async () => {
        while (next < inputs.length) {
            const index = next++
            results[index] = await task(inputs[index]!)
        }
    }
    await Promise.all(Array.from({ length: Math.min(limit, inputs.length) }, worker))
    return results
}
