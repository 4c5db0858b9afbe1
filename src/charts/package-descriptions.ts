import { readFileSync, statSync } from 'node:fs'
import { writeFileAtomic } from '../util/atomic-write.js'

/** What an engine package's module says of the engine: its texts, and the chart formats (files) it converts. */
export type PackageDescription = {
    texts: Record<string, unknown>
    formats: string[]
}

/** A description, and what it was read from: the package's version and its main module's size and time. */
type StoredDescription = PackageDescription & { version: string; entry: string; stamp: string }

/**
 * What each engine package's module said of itself, kept in the state folder, so that a start
 * does not load the module to ask again: sonolus-pjsekai-engine's took 50–90 ms of CPU at every
 * start of the example, for its texts and a look at its exports. A package whose version or main
 * module changed is loaded again; the converters are loaded only to convert (chart-worker.ts).
 */
export class PackageDescriptions {
    private readonly stored: Map<string, StoredDescription>

    constructor(private readonly file?: string) {
        this.stored = new Map(file ? readStored(file) : [])
    }

    /** The description `load` gives of the package, or the one kept from when its version and main module were the same. */
    async describe(
        name: string,
        version: string,
        entry: string,
        load: () => Promise<PackageDescription>,
    ): Promise<PackageDescription> {
        const stamp = stampOf(entry)
        const kept = this.stored.get(name)
        if (kept && kept.version === version && kept.entry === entry && kept.stamp === stamp)
            return kept
        const described = await load()
        this.stored.set(name, { ...described, version, entry, stamp })
        if (this.file)
            await writeFileAtomic(this.file, JSON.stringify(Object.fromEntries(this.stored))).catch(
                // Not kept, the next start loads the module again.
                () => undefined,
            )
        return described
    }
}

const stampOf = (entry: string) => {
    const info = statSync(entry, { throwIfNoEntry: false })
    return info ? `${info.size}:${info.mtimeMs}` : ''
}

const readStored = (file: string): [string, StoredDescription][] => {
    try {
        const stored = JSON.parse(readFileSync(file, 'utf8')) as Record<string, StoredDescription>
        return Object.entries(stored).filter(
            ([, entry]) => Array.isArray(entry?.formats) && typeof entry.texts === 'object',
        )
    } catch {
        // Missing or broken: each package is loaded once and described again.
        return []
    }
}
