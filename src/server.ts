import { once } from 'node:events'
import { stat } from 'node:fs/promises'
import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join, resolve } from 'node:path'
import { Catalog } from './catalog/catalog.js'
import type { ShelfOptions } from './config.js'
import { HashCache } from './content/hash-cache.js'
import { loadContent } from './content/content-state.js'
import { ResourceProcessor } from './content/resources.js'
import { ContentValidator } from './content/validate.js'
import { createApp } from './http/app.js'

export type ListenOptions = { port: number; host?: string }

export type RunningShelf = {
    /** `http://host:port` of the listening socket. */
    url: string
    port: number
    server: Server
    catalog(): Catalog
    close(): Promise<void>
}

/** Reads the content folder into a first catalog snapshot. */
export const buildCatalog = async (options: ShelfOptions): Promise<Catalog> => {
    const content = resolve(options.content)
    // A mistyped --content would otherwise look exactly like an empty server.
    const folder = await stat(content).catch(() => undefined)
    if (!folder?.isDirectory()) throw new Error(`content folder "${options.content}" ${folder ? 'is not a folder' : 'does not exist'} (resolved to ${content})`)
    const cache = resolve(options.cache ?? join(content, '.shelf'))
    const hashes = await HashCache.open(join(cache, 'hashes.json'))
    const loaded = await loadContent(content, { validator: new ContentValidator(), processor: new ResourceProcessor(cache, hashes) })
    await hashes.save()
    return new Catalog(loaded, { drafts: options.drafts })
}

/** Loads the folder and serves it; resolves once the socket is listening. */
export const startShelf = async (options: ShelfOptions, listen: ListenOptions): Promise<RunningShelf> => {
    const catalog = await buildCatalog(options)
    const app = createApp(() => catalog, options)
    const server = app.listen(listen.port, listen.host)
    await once(server, 'listening')
    const { port } = server.address() as AddressInfo
    const host = listen.host && listen.host !== '0.0.0.0' && listen.host !== '::' ? listen.host : 'localhost'
    return {
        url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
        port,
        server,
        catalog: () => catalog,
        close: () =>
            new Promise<void>((done, fail) => {
                server.close((error) => (error ? fail(error) : done()))
                server.closeAllConnections()
            }),
    }
}
