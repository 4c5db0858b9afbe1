import { AsyncLocalStorage } from 'node:async_hooks'

/**
 * One writer at a time per item: a write to an item waits for the writes before it to finish,
 * whatever their outcome. A write queues for all its units at once, so two writes never wait
 * for each other; a write already holding a unit (an edit that then rewrites files) goes on.
 */
export class ItemLocks {
    private readonly tails = new Map<string, Promise<unknown>>()
    private readonly held = new AsyncLocalStorage<ReadonlySet<string>>()

    async run<T>(units: readonly string[], work: () => Promise<T>): Promise<T> {
        const holding = this.held.getStore() ?? new Set<string>()
        const needed = [...new Set(units)].filter((unit) => !holding.has(unit))
        if (!needed.length) return work()
        const previous = needed.map((unit) => this.tails.get(unit))
        let release!: () => void
        const done = new Promise<void>((resolve) => (release = resolve))
        for (const unit of needed) this.tails.set(unit, done)
        try {
            await Promise.all(previous)
            return await this.held.run(new Set([...holding, ...needed]), work)
        } finally {
            release()
            for (const unit of needed) if (this.tails.get(unit) === done) this.tails.delete(unit)
        }
    }
}
