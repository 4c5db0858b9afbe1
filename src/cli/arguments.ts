import { parseArgs } from 'node:util'
import type { ShelfOptions } from '../config.js'
import type { ListenOptions } from '../server.js'

export const helpText = `Shelf: a content server for the Sonolus app, driven by a folder of files.

Usage:
  shelf serve [flags]              serve a content folder, following its changes
  shelf check [DIR] [--format F]   check a content folder (default ./content); exit 1 on any problem
  shelf --help                     show this help

Flags of serve:
  --content DIR     the content folder to serve (default: ./content)
  --port N          port to listen on (default: $PORT, else 3000; 0 picks a free port)
  --host H          interface to listen on (default: all interfaces, so a phone on the
                    same network can connect; the LAN addresses are printed at start)
  --address URL     the server's public address, e.g. https://example.com/shelf; it is
                    written into every item's "source" (default: the address each request
                    arrives on, which suits a local preview)
  --name NAME       protocol name: the path prefix /NAME/... and header prefix Name-...
                    (default: service; the real app needs --name sonolus)
  --drafts          also serve items marked "draft: true"
  --cache DIR       where processed resources are kept (default: CONTENT/.shelf)
  --no-watch        do not follow changes of the folder (they show after a restart)
  -h, --help        show this help

While serving, the problems of the content are also at GET /_shelf/problems (JSON).

Flags of check:
  --format F        text (default) or json
  --drafts          also check items marked "draft: true" as served ones

npm start -- [flags] runs "shelf serve [flags]".`

export class UsageError extends Error {}

export type ServeArguments = { options: ShelfOptions; listen: ListenOptions }

export const parseServeArguments = (args: string[], env: NodeJS.ProcessEnv): ServeArguments => {
    let parsed
    try {
        parsed = parseArgs({
            args,
            strict: true,
            allowPositionals: false,
            options: {
                content: { type: 'string', default: './content' },
                port: { type: 'string' },
                host: { type: 'string' },
                address: { type: 'string' },
                name: { type: 'string', default: 'service' },
                drafts: { type: 'boolean', default: false },
                cache: { type: 'string' },
                watch: { type: 'boolean', default: true },
            },
            allowNegative: true,
        }).values
    } catch (error) {
        throw new UsageError((error as Error).message)
    }
    return {
        options: {
            content: parsed.content,
            name: parseName(parsed.name),
            address: parsed.address === undefined ? undefined : parseAddress(parsed.address),
            drafts: parsed.drafts,
            cache: parsed.cache,
            watch: parsed.watch,
        },
        listen: { port: parsePort(parsed.port ?? env.PORT ?? '3000'), host: parsed.host },
    }
}

const parsePort = (raw: string) => {
    const port = Number(raw)
    if (!/^\d+$/.test(raw) || port > 65535) throw new UsageError(`--port must be a number from 0 to 65535, got "${raw}"`)
    return port
}

const parseName = (raw: string) => {
    if (!/^[a-z][a-z0-9-]*$/.test(raw)) throw new UsageError(`--name must be lower-case letters, digits and dashes (like "sonolus"), got "${raw}"`)
    return raw
}

/** The address is compared byte for byte with what the app signs, so it is kept exactly, less a trailing slash. */
const parseAddress = (raw: string) => {
    let url: URL
    try {
        url = new URL(raw)
    } catch {
        throw new UsageError(`--address must be an absolute URL such as https://example.com, got "${raw}"`)
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`--address must start with http:// or https://, got "${raw}"`)
    return raw.replace(/\/+$/, '')
}

export type CheckArguments = { folder: string; format: 'text' | 'json'; drafts: boolean }

export const parseCheckArguments = (args: string[]): CheckArguments => {
    let parsed
    try {
        parsed = parseArgs({
            args,
            strict: true,
            allowPositionals: true,
            options: { format: { type: 'string', default: 'text' }, drafts: { type: 'boolean', default: false } },
        })
    } catch (error) {
        throw new UsageError((error as Error).message)
    }
    const { format, drafts } = parsed.values
    if (format !== 'text' && format !== 'json') throw new UsageError(`--format must be text or json, got "${format}"`)
    if (parsed.positionals.length > 1) throw new UsageError(`check takes one folder, got ${parsed.positionals.length}`)
    return { folder: parsed.positionals[0] ?? './content', format, drafts }
}
