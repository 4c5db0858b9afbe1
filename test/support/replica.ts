/**
 * `shelf serve` as a replica runs it: its own process on its own clone of one remote, with
 * --git --git-pull --git-push and the session secret every replica shares.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { rm } from 'node:fs/promises'
import { createInterface } from 'node:readline'
import * as assert from 'uvu/assert'
import { repository, shelfArguments } from './built-cli.js'
import { temporaryFolder } from './server.js'

export type Replica = {
    url: string
    root: string
    port: number
    /** Ends it as an operator does (SIGTERM), its state folder removed. */
    stop(): Promise<void>
    /** Ends it at once, as a crash or `kill -9` does, leaving its clone as it was. */
    kill(): Promise<void>
}

export type ReplicaOptions = {
    content: string
    signatureKey: string
    pullEvery: string
    /** Flags added to the replica's (--redis, --address, …). */
    flags?: string[]
    /** A port to listen on: a replica started again takes its old one, which the balancer knows. */
    port?: number
}

/** Resolves once the replica listens and has said it follows and pushes to the remote. */
export const startReplica = async (options: ReplicaOptions): Promise<Replica> => {
    const cache = await temporaryFolder('shelf-replica-cache-')
    const args = [
        '--content',
        options.content,
        '--cache',
        cache,
        '--host',
        '127.0.0.1',
        '--port',
        String(options.port ?? 0),
        '--git',
        '--git-pull',
        '--git-push',
        '--git-pull-every',
        options.pullEvery,
        '--signature-key',
        options.signatureKey,
        ...(options.flags ?? []),
    ]
    const env: NodeJS.ProcessEnv = {
        ...process.env,
        SHELF_SESSION_SECRET: 'the session secret every replica shares',
    }
    const child: ChildProcess = spawn(process.execPath, await shelfArguments(['serve', ...args]), {
        cwd: repository,
        env,
        stdio: ['ignore', 'pipe', 'inherit'],
    })
    const lines: string[] = []
    let url: string | undefined
    for await (const line of createInterface({ input: child.stdout! })) {
        lines.push(line)
        url ??= /^listening on (\S+)$/.exec(line)?.[1]
        if (url && line.startsWith('  pushing player commits to origin/main')) break
    }
    assert.ok(url, `the replica did not start:\n${lines.join('\n')}`)
    child.stdout!.resume()
    const end = async (signal: NodeJS.Signals) => {
        if (child.exitCode === null && child.signalCode === null) {
            const exited = once(child, 'exit')
            child.kill(signal)
            await exited
        }
    }
    return {
        url: url!,
        root: `${url}/service`,
        port: Number(new URL(url!).port),
        stop: async () => {
            await end('SIGTERM')
            await rm(cache, { recursive: true, force: true })
        },
        kill: () => end('SIGKILL'),
    }
}
