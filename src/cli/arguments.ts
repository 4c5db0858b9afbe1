import { parseArgs, type ParseArgsConfig } from 'node:util'
import { sessionSecretVariable } from '../auth/session-secret.js'
import { gitDefaults, multiplayerDefaults, signInDefaults, type ShelfOptions } from '../config.js'
import type { ExportOptions } from '../export/export-site.js'
import type { ListenOptions } from '../server.js'

export const helpText = `Shelf: a content server for the Sonolus app, driven by a folder of files.

Usage:
  shelf init [DIR]                 make a content folder of your own (default ./content)
  shelf serve [flags]              serve a content folder, following its changes
  shelf check [DIR] [--format F]   check a content folder (default ./content); exit 1 on any problem
  shelf export OUT --address URL   write the read side of the protocol as files for a static host
  shelf --help                     show this help

Flags of serve:
  --content DIR     the content folder to serve (default: ./content)
  --port N          port to listen on (default: $PORT, else 3000; 0 picks a free port)
  --host H          interface to listen on (default: all interfaces, so a phone on the
                    same network can connect; the LAN addresses are printed at start)
  --address URL     the server's public address, e.g. https://example.com/shelf; it is
                    written into every item's "source" (default: the address each request
                    arrives on, which suits a local preview)
  --name NAME       the protocol name links and prints use: path prefix /NAME/... and
                    header prefix Name-... (default: sonolus, which the app opens); the
                    protocol answers under /sonolus/ and /service/ as well, each with its
                    own headers
  --drafts          also serve items marked "draft: true"
  --cache DIR       where processed resources are kept (default: CONTENT/.shelf)
  --no-watch        do not follow changes of the folder (they show after a restart)
  --no-web          no web pages at / (only the protocol under /NAME)
  --web-client DIR  serve a built official Sonolus web client from DIR at / instead of
                    Shelf's own pages (its index.html answers every page path)
  -h, --help        show this help

Sign-in (on by default; the app signs in with a request signed by its own key):
  --no-sign-in      turn sign-in off: no sign-in button, no sessions, and no writes
  --read-only       players cannot write: no create, action, comment or result forms
  --signature-key FILE
                    a public JWK file to verify sign-in and room requests with
                    (default: the app's official key)
  --session-secret S
                    the key of session tokens, 32 characters or more; give every replica
                    the same one (default: $SHELF_SESSION_SECRET, else one generated on the
                    first start and kept in CACHE/.session-secret)
  --session-lifetime D
                    how long a session lasts (default: 30m)
  --signature-window D
                    how old, or how far ahead, a signed request's time may be (default: 60s)

Multiplayer rooms (off unless a multiplayer server is given):
  --multiplayer-url URL
                    the WebSocket URL (ws:// or wss://) of the multiplayer server
  --room-reservation D
                    how long a new room waits for its creator to join (default: 5m)
  --room-lifetime D how long a room stays listed after its last join (default: 2h)

Git (off unless asked; needs the git command, 2.32 or newer):
  --git             commit every player write to the folder's git repository, one commit
                    each, authored by the player; the content folder must be in a git work
                    tree, and what you staged or changed yourself is never part of them
  --git-pull        follow the current branch's upstream: fetch, fast-forward (or replay
                    the server's commits on top), serve the change; implies --git
  --git-pull-every D
                    how often to pull (default: 1m); implies --git-pull
  --git-push        push player commits to the upstream after each write; implies --git
  --git-webhook-secret S
                    pull at once when POST /_shelf/git/webhook arrives signed with S (an
                    HMAC-SHA256 of the body, as GitHub, Gitea and Forgejo sign); needs
                    --git-pull (default: $SHELF_GIT_WEBHOOK_SECRET)

Replicas (several servers behind one load balancer; see docs/replicas.md):
  --redis URL       keep upload keys, rooms, write rates and push signals in Redis
                    (redis://host:6379), shared by every replica (default: $SHELF_REDIS_URL,
                    else in this process)
  --trust-proxy     requests come through a reverse proxy: the client's address is the
                    last one of X-Forwarded-For, and coming from this machine does not make
                    a request the owner's (on a server with --address it never does either)

Durations are a number and a unit: 500ms, 90s, 30m, 2h.

While serving, the problems of the content are also at GET /_shelf/problems (JSON), for the
owner only: requests with the owner token, or, without --address and --trust-proxy, from this
machine and not forwarded by a proxy:
  --owner-token T   lets a request with "Authorization: Bearer T" see the owner's pages
                    from anywhere (default: $SHELF_OWNER_TOKEN)
People browse the content at / (pages that follow the folder's edits while it is watched).

Flags of check:
  --format F        text (default) or json
  --drafts          also check items marked "draft: true" as served ones

Flags of export (OUT gets public/, the site's root, and nginx.conf; see docs/export.md):
  --address URL     the address the copy is served at (required); every item's "source"
  --content DIR     the content folder (default: ./content)
  --name NAME       the protocol name the copy answers under (default: sonolus)
  --drafts          also export items marked "draft: true"
  --locale L        the one language exported (default: the content's fallbackLocale)
  --allow-problems  export even when the content has errors (their items are left out)

npm start -- [flags] runs "shelf serve [flags]".`

export class UsageError extends Error {}

export type ServeArguments = { options: ShelfOptions; listen: ListenOptions }

export const parseServeArguments = (args: string[], env: NodeJS.ProcessEnv): ServeArguments => {
    const parsed = parseCommandArguments(args, {
        allowPositionals: false,
        allowNegative: true,
        options: {
            content: { type: 'string', default: './content' },
            port: { type: 'string' },
            host: { type: 'string' },
            address: { type: 'string' },
            name: { type: 'string', default: 'sonolus' },
            drafts: { type: 'boolean', default: false },
            cache: { type: 'string' },
            watch: { type: 'boolean', default: true },
            web: { type: 'boolean', default: true },
            'web-client': { type: 'string' },
            'sign-in': { type: 'boolean', default: true },
            'read-only': { type: 'boolean', default: false },
            'signature-key': { type: 'string' },
            'session-secret': { type: 'string' },
            'session-lifetime': { type: 'string' },
            'signature-window': { type: 'string' },
            'multiplayer-url': { type: 'string' },
            'room-reservation': { type: 'string' },
            'room-lifetime': { type: 'string' },
            'owner-token': { type: 'string' },
            redis: { type: 'string' },
            'trust-proxy': { type: 'boolean', default: false },
            git: { type: 'boolean', default: false },
            'git-pull': { type: 'boolean', default: false },
            'git-pull-every': { type: 'string' },
            'git-push': { type: 'boolean', default: false },
            'git-webhook-secret': { type: 'string' },
        },
    }).values
    return {
        options: {
            content: parsed.content,
            name: parseName(parsed.name),
            address: parsed.address === undefined ? undefined : parseAddress(parsed.address),
            drafts: parsed.drafts,
            cache: parsed.cache,
            watch: parsed.watch,
            web: parsed.web,
            webClient: parsed['web-client'],
            readOnly: parsed['read-only'],
            ownerToken: parsed['owner-token'] ?? env.SHELF_OWNER_TOKEN,
            redis: parseRedisUrl(parsed.redis ?? env.SHELF_REDIS_URL),
            trustProxy: parsed['trust-proxy'],
            signIn: {
                enabled: parsed['sign-in'],
                signatureKey: parsed['signature-key'],
                sessionSecret: parsed['session-secret'] ?? env[sessionSecretVariable],
                sessionLifetimeMs: parseDuration(
                    '--session-lifetime',
                    parsed['session-lifetime'],
                    signInDefaults.sessionLifetimeMs,
                ),
                signatureWindowMs: parseDuration(
                    '--signature-window',
                    parsed['signature-window'],
                    signInDefaults.signatureWindowMs,
                ),
            },
            multiplayer:
                parsed['multiplayer-url'] === undefined
                    ? undefined
                    : {
                          url: parseWebSocketUrl(parsed['multiplayer-url']),
                          reservationMs: parseDuration(
                              '--room-reservation',
                              parsed['room-reservation'],
                              multiplayerDefaults.reservationMs,
                          ),
                          lifetimeMs: parseDuration(
                              '--room-lifetime',
                              parsed['room-lifetime'],
                              multiplayerDefaults.lifetimeMs,
                          ),
                      },
            git: parseGit(parsed, env),
        },
        listen: { port: parsePort(parsed.port ?? env.PORT ?? '3000'), host: parsed.host },
    }
}

/** A Redis address as ioredis takes it; anything else is a mistake told at start, not a connection error later. */
const parseRedisUrl = (url: string | undefined) => {
    if (url === undefined || url === '') return undefined
    if (!/^rediss?:\/\/[^/]/.test(url))
        throw new UsageError(
            `--redis must be a redis:// (or rediss://) address such as redis://127.0.0.1:6379, got "${url}"`,
        )
    return url
}

export const webhookSecretVariable = 'SHELF_GIT_WEBHOOK_SECRET'

type GitFlags = {
    git: boolean
    'git-pull': boolean
    'git-pull-every'?: string
    'git-push': boolean
    'git-webhook-secret'?: string
}

/** --git-pull, --git-pull-every and --git-push each imply --git: they follow the commits it makes. */
const parseGit = (flags: GitFlags, env: NodeJS.ProcessEnv): ShelfOptions['git'] => {
    const pull = flags['git-pull'] || flags['git-pull-every'] !== undefined
    const webhookSecret = flags['git-webhook-secret'] ?? env[webhookSecretVariable]
    if (flags['git-webhook-secret'] !== undefined && !pull)
        throw new UsageError('--git-webhook-secret starts a pull, so it needs --git-pull')
    // A guessable secret would let anyone make the server pull (harmless, but not asked for).
    if (pull && webhookSecret !== undefined && webhookSecret.length < 16)
        throw new UsageError('--git-webhook-secret must be 16 characters or more')
    if (!flags.git && !pull && !flags['git-push']) return undefined
    return {
        pull: pull
            ? {
                  everyMs: parseDuration(
                      '--git-pull-every',
                      flags['git-pull-every'],
                      gitDefaults.pullEveryMs,
                  ),
                  webhookSecret,
              }
            : undefined,
        push: flags['git-push'],
    }
}

const parsePort = (raw: string) => {
    const port = Number(raw)
    if (!/^\d+$/.test(raw) || port > 65535)
        throw new UsageError(`--port must be a number from 0 to 65535, got "${raw}"`)
    return port
}

const parseName = (raw: string) => {
    if (!/^[a-z][a-z0-9-]*$/.test(raw))
        throw new UsageError(
            `--name must be lower-case letters, digits and dashes (like "sonolus"), got "${raw}"`,
        )
    return raw
}

const parseUrl = (flag: string, raw: string, protocols: string[], example: string) => {
    let url: URL | undefined
    try {
        url = new URL(raw)
    } catch {
        url = undefined
    }
    if (!url || !protocols.includes(url.protocol)) {
        throw new UsageError(
            `${flag} must be an absolute ${protocols.map((protocol) => `${protocol}//`).join(' or ')} URL such as ${example}, got "${raw}"`,
        )
    }
    return raw
}

/** The address is compared byte for byte with what the app signs, so it is kept exactly, less a trailing slash. */
const parseAddress = (raw: string) =>
    parseUrl('--address', raw, ['http:', 'https:'], 'https://example.com').replace(/\/+$/, '')

const parseWebSocketUrl = (raw: string) =>
    parseUrl('--multiplayer-url', raw, ['ws:', 'wss:'], 'wss://example.com/rooms')

const durationUnits = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as const

const parseDuration = (flag: string, raw: string | undefined, fallback: number) => {
    if (raw === undefined) return fallback
    const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/.exec(raw.trim())
    const ms = match
        ? Number(match[1]) * durationUnits[match[2] as keyof typeof durationUnits]
        : NaN
    if (!(ms > 0))
        throw new UsageError(
            `${flag} must be a duration such as 500ms, 90s, 30m or 2h, got "${raw}"`,
        )
    return ms
}

export type InitArguments = { folder: string }

export const parseInitArguments = (args: string[]): InitArguments => {
    const { positionals } = parseCommandArguments(args, { allowPositionals: true, options: {} })
    if (positionals.length > 1)
        throw new UsageError(`init takes one folder, got ${positionals.length}`)
    return { folder: positionals[0] ?? './content' }
}

export type CheckArguments = { folder: string; format: 'text' | 'json'; drafts: boolean }

/** A command's flags (and folders, where it takes any), parseArgs' complaints turned into usage errors. */
const parseCommandArguments = <const T extends Omit<ParseArgsConfig, 'args' | 'strict'>>(
    args: string[],
    config: T,
) => {
    try {
        return parseArgs<T & { args: string[]; strict: true }>({ ...config, args, strict: true })
    } catch (error) {
        throw new UsageError((error as Error).message)
    }
}

export const parseCheckArguments = (args: string[]): CheckArguments => {
    const parsed = parseCommandArguments(args, {
        allowPositionals: true,
        options: {
            format: { type: 'string', default: 'text' },
            drafts: { type: 'boolean', default: false },
        },
    })
    const { format, drafts } = parsed.values
    if (format !== 'text' && format !== 'json')
        throw new UsageError(`--format must be text or json, got "${format}"`)
    if (parsed.positionals.length > 1)
        throw new UsageError(`check takes one folder, got ${parsed.positionals.length}`)
    return { folder: parsed.positionals[0] ?? './content', format, drafts }
}

export const parseExportArguments = (args: string[]): ExportOptions => {
    const { values, positionals } = parseCommandArguments(args, {
        allowPositionals: true,
        options: {
            address: { type: 'string' },
            content: { type: 'string', default: './content' },
            name: { type: 'string', default: 'sonolus' },
            drafts: { type: 'boolean', default: false },
            locale: { type: 'string' },
            'allow-problems': { type: 'boolean', default: false },
        },
    })
    if (positionals.length !== 1)
        throw new UsageError(`export takes one output folder, got ${positionals.length}`)
    if (values.address === undefined)
        throw new UsageError(
            'export needs --address URL: the address the copy will be served at, written into every item',
        )
    if (
        values.locale !== undefined &&
        !/^[A-Za-z]{2,8}(?:[-_][A-Za-z0-9]{1,8})*$/.test(values.locale)
    ) {
        throw new UsageError(
            `--locale must be a locale code such as en or zhs, got "${values.locale}"`,
        )
    }
    return {
        out: positionals[0]!,
        address: parseAddress(values.address),
        content: values.content,
        name: parseName(values.name),
        drafts: values.drafts,
        locale: values.locale,
        allowProblems: values['allow-problems'],
    }
}
