/**
 * Runs in a worker thread (chart-converter.ts): converts one chart at a time with an engine
 * package's own functions, checks the result against the protocol's LevelData schema and gzips
 * it. A chart that would take the converter long or need much memory costs this thread, which
 * the main thread ends, never the server.
 */
import { compressSync } from '@sonolus/core'
import { Ajv } from 'ajv'
import { readFileSync } from 'node:fs'
import { parentPort, workerData } from 'node:worker_threads'
import { chartFormatNamed } from './chart-formats.js'
import { importExports } from './package-exports.js'

export type ConvertRequest = {
    /** The package's main module, where its converters are exported. */
    entry: string
    packageName: string
    format: string
    source: Uint8Array
    maxEntities: number
}

/** Said when the package's converter starts on the chart: its time bound starts then. */
export type ConversionStarted = { started: true }

export type ConvertAnswer =
    { ok: true; bytes: Uint8Array; entities: number } | { ok: false; message: string }

const ajv = new Ajv({ allErrors: false, strict: true })
const validateLevelData = ajv.compile(
    JSON.parse(readFileSync((workerData as { schema: string }).schema, 'utf8')) as object,
)

const packages = new Map<string, Promise<Record<string, unknown>>>()

class Refused extends Error {}

const convert = async ({ entry, packageName, format, source, maxEntities }: ConvertRequest) => {
    const chartFormat = chartFormatNamed(format)!
    let text: string
    try {
        text = new TextDecoder('utf-8', { fatal: true }).decode(source)
    } catch {
        throw new Refused('the chart is not UTF-8 text')
    }
    let chart: unknown = text
    if (chartFormat.json) {
        try {
            chart = JSON.parse(text)
        } catch (error) {
            throw new Refused(`invalid JSON: ${(error as Error).message}`)
        }
        // A .usc file as chart editors save it wraps the chart: `{ "usc": {…}, "version": 2 }`.
        if (format === 'usc' && typeof chart === 'object' && chart !== null && 'usc' in chart)
            chart = (chart as { usc: unknown }).usc
    }
    if (!packages.has(entry)) packages.set(entry, importExports(entry))
    const exports = await packages.get(entry)!
    let value = chart
    parentPort!.postMessage({ started: true } satisfies ConversionStarted)
    for (const name of chartFormat.converters) {
        const converter = exports[name]
        if (typeof converter !== 'function') throw new Refused(`${packageName} exports no ${name}`)
        value = (converter as (input: unknown) => unknown)(value)
    }
    const entities = (value as { entities?: unknown } | null)?.entities
    if (Array.isArray(entities) && entities.length > maxEntities)
        throw new Refused(
            `the chart makes ${entities.length} entities, more than the ${maxEntities} a level may have: refused`,
        )
    // Through JSON, as the app will read it: a number the converter made NaN or Infinity becomes
    // null, which the schema refuses.
    const data = JSON.parse(JSON.stringify(value ?? null)) as unknown
    if (!validateLevelData(data)) {
        const [error] = validateLevelData.errors ?? []
        throw new Refused(
            `${packageName} made no valid LevelData of this chart (${error?.instancePath || 'the data'} ${error?.message ?? ''}): check the chart's values`,
        )
    }
    return { data, entities: (data as { entities: unknown[] }).entities.length }
}

parentPort!.on('message', (request: ConvertRequest) => {
    convert(request).then(
        ({ data, entities }) => {
            const bytes = compressSync(data)
            parentPort!.postMessage({ ok: true, bytes, entities } satisfies ConvertAnswer)
        },
        (error: unknown) => {
            const message =
                error instanceof Refused
                    ? error.message
                    : `${request.packageName} could not convert it: ${(error as Error).message ?? String(error)}`
            parentPort!.postMessage({ ok: false, message } satisfies ConvertAnswer)
        },
    )
})
