/**
 * Where a stall of the event loop went, told by a V8 CPU profile of the same run (`node
 * --cpu-prof`): the functions on the stack in the samples taken during it, each with the share
 * of those samples it was on the stack for (its own time and its callees'). The stall is given on the profile's clock (bench/loop-stall-probe.js notes it so).
 */
import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'

type Frame = { functionName: string; url: string; lineNumber: number }
type CpuProfile = {
    nodes: { id: number; callFrame: Frame; children?: number[] }[]
    startTime: number
    samples: number[]
    timeDeltas: number[]
}

/** The main thread's profile in a folder `--cpu-prof-dir` wrote (thread 0 in its name), the newest. */
export const mainThreadProfile = async (folder: string) => {
    const names = (await readdir(folder)).filter((name) => /\.0\.\d+\.cpuprofile$/.test(name))
    const newest = names.sort().at(-1)
    return newest && (JSON.parse(await readFile(join(folder, newest), 'utf8')) as CpuProfile)
}

const frameName = ({ functionName, url, lineNumber }: Frame) =>
    `${functionName || '(anonymous)'}${url ? ` ${url.split('/').at(-1)}:${lineNumber + 1}` : ''}`

/** The `top` frames most on the stack between `fromUs` and `toUs`, with their share of the samples. */
export const framesDuring = (profile: CpuProfile, fromUs: number, toUs: number, top: number) => {
    const byId = new Map(profile.nodes.map((node) => [node.id, node]))
    const parent = new Map<number, number>()
    for (const node of profile.nodes)
        for (const child of node.children ?? []) parent.set(child, node.id)
    const onStack = new Map<string, number>()
    let samples = 0
    let time = profile.startTime
    for (const [index, sample] of profile.samples.entries()) {
        time += profile.timeDeltas[index]!
        if (time < fromUs || time > toUs) continue
        samples++
        const seen = new Set<string>()
        for (let id: number | undefined = sample; id !== undefined; id = parent.get(id)) {
            const frame = byId.get(id)!.callFrame
            if (frame.functionName === '(root)') continue
            const name = frameName(frame)
            if (seen.has(name)) continue
            seen.add(name)
            onStack.set(name, (onStack.get(name) ?? 0) + 1)
        }
    }
    return {
        samples,
        frames: [...onStack]
            .sort((a, b) => b[1] - a[1])
            .slice(0, top)
            .map(([name, count]) => `${Math.round((100 * count) / samples)}% ${name}`),
    }
}
