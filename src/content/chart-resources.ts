/**
 * Where the loader meets src/charts/: engines whose files and texts come from an npm package,
 * and levels whose data is a chart that their engine's package converts.
 */
import { statSync } from 'node:fs'
import type { ChartConverter } from '../charts/chart-converter.js'
import { ChartError } from '../charts/chart-error.js'
import type { ChartFormat } from '../charts/chart-formats.js'
import type { EnginePackage, EnginePackages } from '../charts/engine-packages.js'
import type { ItemRecord } from './load.js'
import { ContentError } from './problems.js'
import type { Resource, ResourceProcessor } from './resources.js'

/** What the loader needs for engines from npm packages and charts as level data. */
export type ChartTools = {
    packages: EnginePackages
    converter: ChartConverter
}

/** A problem of src/charts/ as one of the file being loaded. */
const asContentError = async <T>(work: Promise<T>) => {
    try {
        return await work
    } catch (error) {
        throw error instanceof ChartError ? new ContentError(error.message, error.position) : error
    }
}

/** What names the bytes a package made, so that another version makes them again. */
const maker = (pack: EnginePackage) => `${pack.name}@${pack.version}`

/**
 * An engine record naming a package: the package as installed, and the record's fields over the
 * texts the package gives the engine. A record that still has no title is refused.
 */
export const packagedEngineRecord = async (tools: ChartTools, data: Record<string, unknown>) => {
    const pack = await asContentError(tools.packages.find(String(data.package)))
    const merged = { ...pack.texts, ...data }
    if (merged.title === undefined)
        throw new ContentError(
            `missing required field "title": package "${pack.name}" gives the engine none`,
            { field: 'title' },
        )
    return { pack, data: merged }
}

/** The engine's files its folder does not hold, from its package (served from copies in the state folder). */
export const packageResources = async (
    processor: ResourceProcessor,
    pack: EnginePackage,
    held: Record<string, Resource>,
) => {
    const resources: Record<string, Resource> = {}
    for (const [role, path] of Object.entries(pack.files)) {
        if (held[role]) continue
        resources[role] = {
            served: await processor.processMade(path, maker(pack), async (bytes) => bytes),
        }
    }
    return resources
}

/**
 * A level's chart as served LevelData, converted by the package of the engine the level uses
 * (and cached by the chart's size and time, and the package's version).
 */
export const convertedChart = async (
    tools: ChartTools,
    processor: ResourceProcessor,
    engineName: string,
    /** That engine as the folder serves it now. */
    engine: ItemRecord | undefined,
    path: string,
    format: ChartFormat,
) => {
    const pack = engine?.enginePackage
    if (!engine)
        throw new ContentError(
            `engine "${engineName}" of the level does not load, so nothing converts this ${format.title}`,
        )
    if (!pack)
        throw new ContentError(
            `engine "${engineName}" names no engine package, so nothing converts this ${format.title}: use an engine with \`package:\` (sonolus-pjsekai-engine converts data.usc and data.sus, sonolus-bandori-engine data.bestdori.json), or keep data.json`,
        )
    if (!pack.formats.includes(format))
        throw new ContentError(
            `${pack.name}, the package of engine "${engineName}", converts no ${format.title}${pack.formats.length ? `: it converts ${pack.formats.map((known) => known.file).join(', ')}` : ''}`,
        )
    const { size } = statSync(path)
    const limit = tools.converter.limits.sourceBytes
    if (size > limit)
        throw new ContentError(
            `the chart is ${size} bytes, more than the ${limit} a chart may be: refused`,
        )
    return processor.processMade(
        path,
        maker(pack),
        async (source) =>
            (await asContentError(tools.converter.convert(pack, format, source))).bytes,
    )
}
