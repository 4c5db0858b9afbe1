import { cp, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { ShelfOptions } from '../../src/config.js'
import { startShelf, type RunningShelf } from '../../src/server.js'

export const exampleContent = fileURLToPath(new URL('../../content/', import.meta.url))

/** A scratch folder that the test removes when done. */
export const temporaryFolder = (prefix = 'shelf-test-') => mkdtemp(join(tmpdir(), prefix))

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
