/**
 * A real redis-server for tests, on a free loopback port, keeping nothing on disk; it can be
 * stopped and started again on the same port, as an operator's Redis restarts.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { rm } from 'node:fs/promises'
import { createInterface } from 'node:readline'
import { freePort } from './nginx.js'
import { temporaryFolder } from './server.js'

export type RunningRedis = {
    url: string
    /** Stops it (SIGKILL: a crash, nothing saved); `start` brings it back on the same port. */
    kill(): Promise<void>
    start(): Promise<void>
    stop(): Promise<void>
}

export const startRedis = async (): Promise<RunningRedis> => {
    const folder = await temporaryFolder('shelf-redis-')
    const port = await freePort()
    let child: ChildProcess | undefined
    const start = async () => {
        child = spawn(
            'redis-server',
            ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
            { cwd: folder, stdio: ['ignore', 'pipe', 'inherit'] },
        )
        const lines: string[] = []
        for await (const line of createInterface({ input: child.stdout! })) {
            lines.push(line)
            if (/Ready to accept connections/.test(line)) break
        }
        if (child.exitCode !== null || !lines.some((line) => /Ready to accept/.test(line)))
            throw new Error(`redis-server did not start:\n${lines.join('\n')}`)
        child.stdout!.resume()
    }
    const kill = async () => {
        if (child && child.exitCode === null) {
            const exited = once(child, 'exit')
            child.kill('SIGKILL')
            await exited
        }
    }
    await start()
    return {
        url: `redis://127.0.0.1:${port}`,
        kill,
        start,
        stop: async () => {
            await kill()
            await rm(folder, { recursive: true, force: true })
        },
    }
}
