/**
 * `node --import tsx bench/charts.ts`: how long a chart takes to convert through Shelf's worker
 * threads with the real engine packages, and how long the event loop waited meanwhile (it should
 * not: the conversion runs off it). Each size and format is converted once to warm the worker,
 * then five times; the table shows the median and the longest event-loop delay seen. The target
 * is a 5,000-note chart in under a second, with no delay of the event loop past 50 ms.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { ChartConverter, defaultConversionLimits } from '../src/charts/chart-converter.js'
import { chartFormatNamed } from '../src/charts/chart-formats.js'
import { EnginePackages } from '../src/charts/engine-packages.js'
import { bestdoriChart, susChart, uscChart } from '../test/support/chart-files.js'
import { formatNumber, log, renderTable } from './output.js'

const runs = 5
const cases = [
    { format: 'sus', package: 'sonolus-pjsekai-engine', chart: susChart },
    { format: 'usc', package: 'sonolus-pjsekai-engine', chart: uscChart },
    { format: 'bestdori', package: 'sonolus-bandori-engine', chart: bestdoriChart },
] as const

const packages = new EnginePackages(process.cwd())
const converter = new ChartConverter(defaultConversionLimits)
const rows: string[][] = []
for (const notes of [500, 5_000, 20_000]) {
    for (const { format, package: name, chart } of cases) {
        log(`${format}, ${notes} notes…`)
        const pack = await packages.find(name)
        const source = Buffer.from(chart(notes))
        const chartFormat = chartFormatNamed(format)!
        await converter.convert(pack, chartFormat, source)
        const delay = monitorEventLoopDelay({ resolution: 5 })
        delay.enable()
        const times: number[] = []
        let entities = 0
        for (let run = 0; run < runs; run++) {
            const started = performance.now()
            entities = (await converter.convert(pack, chartFormat, source)).entities
            times.push(performance.now() - started)
        }
        delay.disable()
        times.sort((a, b) => a - b)
        rows.push([
            format,
            String(notes),
            String(source.length),
            String(entities),
            formatNumber(times[Math.floor(runs / 2)], 1),
            formatNumber(delay.max / 1e6, 1),
        ])
    }
}
await converter.close()
// What the event loop waits on this machine with nothing to do, for comparison: on a busy
// machine the process itself waits for a core.
const idle = monitorEventLoopDelay({ resolution: 5 })
idle.enable()
await new Promise((resolve) => setTimeout(resolve, 3000))
idle.disable()
rows.push(['(idle, 3 s)', '', '', '', '', formatNumber(idle.max / 1e6, 1)])
console.log(
    renderTable(
        ['format', 'notes', 'bytes', 'entities', 'median ms', 'max loop delay ms'],
        rows,
        [0],
    ),
)
