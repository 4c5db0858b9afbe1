import { rmSync } from 'node:fs'
import { cp, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { ShelfOptions } from '../../src/config.js'
import { startShelf, type RunningShelf } from '../../src/server.js'

export const exampleContent = fileURLToPath(new URL('../../content/', import.meta.url))

const scratchFolders = new Set<string>()
// Removed when the test process ends, however each test ended, so that runs do not fill the
// system's temporary folder (a failed assertion skips a test's own clean-up).
process.once('exit', () => {
    for (const folder of scratchFolders) rmSync(folder, { recursive: true, force: true })
})

/** A scratch folder, removed when the test process ends. */
export const temporaryFolder = async (prefix = 'shelf-test-') => {
    const folder = await mkdtemp(join(tmpdir(), prefix))
    scratchFolders.add(folder)
    return folder
}

/** A private copy of a content folder, so a test may change files without touching the original. */
export const copyContent = async (source = exampleContent) => {
    const folder = await temporaryFolder()
    await cp(source, folder, { recursive: true, filter: (path) => !path.includes(`${'/'}.shelf`) })
    return folder
}

export type TestServer = RunningShelf & {
    /** `http://127.0.0.1:PORT/{name}`: the protocol root. */
    root: string
    stop(): Promise<void>
}

/** Starts the real server on a free loopback port; its cache goes to a scratch folder. */
export const startTestServer = async (options: Partial<ShelfOptions> = {}): Promise<TestServer> => {
    const cache = await temporaryFolder('shelf-cache-')
    const name = options.name ?? 'service'
    const shelf = await startShelf(
        { content: exampleContent, name, drafts: false, cache, ...options },
        { port: 0, host: '127.0.0.1' },
    )
    await shelf.watching
    return {
        ...shelf,
        root: `${shelf.url}/${name}`,
        stop: async () => {
            await shelf.close()
            await rm(cache, { recursive: true, force: true })
        },
    }
}

export type JsonResponse<T = unknown> = { status: number; headers: Headers; body: T }

export const getJson = async <T = unknown>(
    url: string,
    init?: RequestInit,
): Promise<JsonResponse<T>> => {
    const response = await fetch(url, init)
    const text = await response.text()
    let body: T
    try {
        body = JSON.parse(text) as T
    } catch {
        throw new Error(
            `${url} answered ${response.status} with a body that is not JSON: ${text.slice(0, 200)}`,
        )
    }
    return { status: response.status, headers: response.headers, body }
}
