/**
 * Low-level HTTP for tests that need what `fetch` hides: a path sent byte for byte (fetch
 * normalizes `%2e%2e` and `..`), the raw bytes of a gzip resource (fetch would gunzip them) and
 * every header as sent.
 */
import { request } from 'node:http'
import * as assert from 'uvu/assert'

export type RawResponse = {
    status: number
    /** The reason phrase of the status line (`Partial Content`). */
    statusText: string
    headers: Record<string, string | string[] | undefined>
    body: Buffer
    header(name: string): string | undefined
    json<T = unknown>(): T
}

export const rawRequest = (
    origin: string,
    path: string,
    options: { method?: string; headers?: Record<string, string> } = {},
) =>
    new Promise<RawResponse>((resolve, reject) => {
        const { hostname, port } = new URL(origin)
        const req = request(
            {
                host: hostname,
                port,
                path,
                method: options.method ?? 'GET',
                headers: options.headers ?? {},
            },
            (res) => {
                const chunks: Buffer[] = []
                res.on('data', (chunk: Buffer) => chunks.push(chunk))
                res.on('error', reject)
                res.on('end', () => {
                    const body = Buffer.concat(chunks)
                    resolve({
                        status: res.statusCode ?? 0,
                        statusText: res.statusMessage ?? '',
                        headers: res.headers,
                        body,
                        header: (name) => {
                            const value = res.headers[name.toLowerCase()]
                            return Array.isArray(value) ? value.join(', ') : value
                        },
                        json: <T>() => {
                            try {
                                return JSON.parse(body.toString('utf8')) as T
                            } catch {
                                throw new Error(
                                    `${options.method ?? 'GET'} ${path} answered ${res.statusCode} with a body that is not JSON: ${body.toString('utf8').slice(0, 200)}`,
                                )
                            }
                        },
                    })
                })
            },
        )
        req.on('error', reject)
        req.end()
    })

/** An error answer as the protocol wants it: the status, and a JSON `{ message }` body. */
export const assertJsonError = (
    response: { status: number; headers: Headers | RawResponse['headers']; body: unknown },
    status: number | number[],
    what: string,
) => {
    const statuses = Array.isArray(status) ? status : [status]
    assert.ok(
        statuses.includes(response.status),
        `${what}: expected status ${statuses.join(' or ')}, got ${response.status}`,
    )
    const type =
        response.headers instanceof Headers
            ? response.headers.get('content-type')
            : (response.headers['content-type'] as string | undefined)
    assert.match(type ?? '', /^application\/json/, `${what}: error body is JSON`)
    const message = (response.body as { message?: unknown } | null)?.message
    assert.type(message, 'string', `${what}: error body has a message`)
    assert.ok((message as string).length > 0, `${what}: message is not empty`)
}

export type SrlLike = { hash: string; url: string }

/** Every object with a string `hash` and `url` anywhere in a JSON value. */
export const collectSrls = (
    value: unknown,
    into = new Map<string, SrlLike>(),
): Map<string, SrlLike> => {
    if (Array.isArray(value)) {
        for (const entry of value) collectSrls(entry, into)
    } else if (value && typeof value === 'object') {
        const object = value as Record<string, unknown>
        if (typeof object.hash === 'string' && typeof object.url === 'string')
            into.set(`${object.hash} ${object.url}`, { hash: object.hash, url: object.url })
        for (const entry of Object.values(object)) collectSrls(entry, into)
    }
    return into
}

export type ItemLike = {
    name: string
    source?: string
    version: number
    title: string
    tags: unknown[]
} & Record<string, unknown>

/** Every item record (an object with a name, a version and tags) anywhere in a JSON value. */
export const collectItems = (value: unknown, into: ItemLike[] = []): ItemLike[] => {
    if (Array.isArray(value)) {
        for (const entry of value) collectItems(entry, into)
    } else if (value && typeof value === 'object') {
        const object = value as Record<string, unknown>
        if (
            typeof object.name === 'string' &&
            typeof object.version === 'number' &&
            Array.isArray(object.tags)
        )
            into.push(object as ItemLike)
        for (const entry of Object.values(object)) collectItems(entry, into)
    }
    return into
}

export const names = (items: readonly { name: string }[]) => items.map((item) => item.name)
