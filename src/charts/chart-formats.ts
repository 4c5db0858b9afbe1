/**
 * The chart formats a level's `data` may be kept in, instead of the app's LevelData: each names
 * the file that holds it and the functions an engine package must export to convert it. The
 * engine a level uses decides whether its package converts the chart: any package that exports
 * the functions does, with its own code.
 */
export type ChartFormat = {
    format: 'usc' | 'sus' | 'bestdori'
    /** What follows `data.` in the name of the file of a level folder that holds such a chart. */
    extension: string
    /** That file: `data.usc`. */
    file: string
    /** What an author knows the format as, for messages. */
    title: string
    /** The package's exports that convert it, applied in order (`sus` → USC → LevelData). */
    converters: readonly string[]
    /** Whether the file is JSON (its syntax errors can name a line). */
    json: boolean
}

export const chartFormats: readonly ChartFormat[] = [
    {
        format: 'usc',
        extension: 'usc',
        file: 'data.usc',
        title: 'USC chart',
        converters: ['uscToLevelData'],
        json: true,
    },
    {
        format: 'sus',
        extension: 'sus',
        file: 'data.sus',
        title: 'SUS chart',
        converters: ['susToUSC', 'uscToLevelData'],
        json: false,
    },
    {
        format: 'bestdori',
        extension: 'bestdori.json',
        file: 'data.bestdori.json',
        title: 'Bestdori chart',
        converters: ['bestdoriToLevelData'],
        json: true,
    },
]

export type ChartFormatName = ChartFormat['format']

export const chartFormatOfFile = (fileName: string) =>
    chartFormats.find((format) => format.file === fileName)

export const chartFormatNamed = (name: string) =>
    chartFormats.find((format) => format.format === name)

/**
 * What an uploaded file holds, when it is a chart of one of the formats: the app sends files by
 * hash, without their names, so their bytes say. A JSON list is a Bestdori chart, a JSON map
 * with `objects` (or a `usc` holding them) is a USC chart; a text of `#` lines is a SUS chart.
 * LevelData itself (a map with `entities`) is no chart.
 */
export const chartFormatOfBytes = (bytes: Buffer): ChartFormat | undefined => {
    const text = bytes.toString('utf8')
    let parsed: unknown
    try {
        parsed = JSON.parse(text)
    } catch {
        return /^\s*#/.test(text) ? chartFormatNamed('sus') : undefined
    }
    if (Array.isArray(parsed)) return chartFormatNamed('bestdori')
    if (typeof parsed !== 'object' || parsed === null) return undefined
    const usc = 'usc' in parsed ? (parsed as { usc: unknown }).usc : parsed
    return typeof usc === 'object' && usc !== null && 'objects' in usc
        ? chartFormatNamed('usc')
        : undefined
}
