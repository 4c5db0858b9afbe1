/**
 * Summarises a V8 CPU profile (`node --cpu-prof`, as `npm run bench -- --profile DIR` writes):
 * where the self time went, by package and by function, with Shelf's own code listed apart.
 *
 *   node --import tsx bench/profile-summary.ts PROFILE.cpuprofile [--skip S] [--until S] [--top N]
 *
 * `--skip S` leaves out the first S seconds of samples (the start-up, say), so what remains is
 * the server under load; `--until S` stops at S seconds (`--until 5` is the start-up alone).
 */
import { readFile } from 'node:fs/promises'
import { parseArgs } from 'node:util'
import { formatNumber, renderTable } from './output.js'

interface CallFrame {
    functionName: string
    url: string
    lineNumber: number
    columnNumber: number
}

interface ProfileNode {
    id: number
    callFrame: CallFrame
}

interface CpuProfile {
    nodes: ProfileNode[]
    samples: number[]
    timeDeltas: number[]
}

/** Where a function lives: Shelf itself, a package, Node's own JavaScript, or V8's pseudo-frames. */
function originOf(url: string, functionName: string): string {
    if (url === '') return functionName.startsWith('(') ? functionName : '(native)'
    if (url.startsWith('node:')) return 'node internals'
    const packagePath = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)
    if (packagePath?.[1]) return packagePath[1]
    return 'shelf'
}

function shortUrl(url: string): string {
    const inPackage = /node_modules\/(.*)$/.exec(url)
    if (inPackage?.[1]) return inPackage[1]
    const inDist = /\/(dist\/.*)$/.exec(url)
    if (inDist?.[1]) return inDist[1]
    return url.replace(/^file:\/\//, '')
}

async function main(): Promise<void> {
    const { values, positionals } = parseArgs({
        args: process.argv.slice(2),
        allowPositionals: true,
        options: {
            skip: { type: 'string', default: '0' },
            until: { type: 'string' },
            top: { type: 'string', default: '25' },
            help: { type: 'boolean', short: 'h', default: false },
        },
    })
    const file = positionals[0]
    if (values.help || file === undefined) {
        console.log(
            'usage: node --import tsx bench/profile-summary.ts PROFILE.cpuprofile [--skip S] [--until S] [--top N]',
        )
        process.exit(values.help ? 0 : 1)
    }
    const skipUs = Number(values.skip) * 1e6
    const untilUs = values.until === undefined ? Infinity : Number(values.until) * 1e6
    const top = Number(values.top)

    const profile = JSON.parse(await readFile(file, 'utf8')) as CpuProfile
    const nodes = new Map(profile.nodes.map((node) => [node.id, node]))
    const byFunction = new Map<string, { frame: CallFrame; origin: string; us: number }>()
    const byOrigin = new Map<string, number>()
    let elapsedUs = 0
    let totalUs = 0
    for (let i = 0; i < profile.samples.length; i++) {
        const delta = profile.timeDeltas[i] ?? 0
        elapsedUs += delta
        if (elapsedUs < skipUs) continue
        if (elapsedUs > untilUs) break
        const node = nodes.get(profile.samples[i] ?? -1)
        if (!node) continue
        const { callFrame: frame } = node
        const origin = originOf(frame.url, frame.functionName)
        totalUs += delta
        byOrigin.set(origin, (byOrigin.get(origin) ?? 0) + delta)
        const key = `${frame.functionName}\n${frame.url}\n${frame.lineNumber}`
        const entry = byFunction.get(key) ?? { frame, origin, us: 0 }
        entry.us += delta
        byFunction.set(key, entry)
    }
    if (totalUs === 0)
        throw new Error('no samples in that window (is --skip longer than the profile?)')

    const percent = (us: number) => `${formatNumber((us / totalUs) * 100, 1)}%`
    const ms = (us: number) => formatNumber(us / 1000, 0)
    const functionRows = (entries: { frame: CallFrame; origin: string; us: number }[]) =>
        entries
            .slice(0, top)
            .map(({ frame, origin, us }) => [
                percent(us),
                ms(us),
                frame.functionName || '(anonymous)',
                `${shortUrl(frame.url)}${frame.url ? `:${frame.lineNumber + 1}` : ''}`,
                origin,
            ])
    const sorted = [...byFunction.values()].sort((a, b) => b.us - a.us)
    const header = ['self', 'ms', 'function', 'where', 'origin']

    const window = [
        skipUs > 0 ? `after the first ${values.skip} s` : '',
        values.until ? `until ${values.until} s` : '',
    ]
    console.log(
        `${file}: ${ms(totalUs)} ms of samples ${window.filter(Boolean).join(', ')}\n`.replace(
            ' \n',
            '\n',
        ),
    )
    console.log('self time by origin')
    const origins = [...byOrigin.entries()].sort((a, b) => b[1] - a[1])
    console.log(
        renderTable(
            ['self', 'ms', 'origin'],
            origins.map(([origin, us]) => [percent(us), ms(us), origin]),
            [2],
        ),
    )
    console.log(`\ntop ${top} functions by self time`)
    console.log(renderTable(header, functionRows(sorted), [2, 3, 4]))
    console.log(`\ntop ${top} of Shelf's own functions by self time`)
    console.log(
        renderTable(
            header,
            functionRows(sorted.filter((entry) => entry.origin === 'shelf')),
            [2, 3, 4],
        ),
    )
}

main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error)
    process.exitCode = 1
})
