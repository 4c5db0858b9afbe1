import type { ConversionLimits } from './charts/chart-converter.js'

/** Everything `shelf serve` can be told, after the command line is parsed. */
export type ShelfOptions = {
    /** The content folder. */
    content: string
    /**
     * The protocol name links, prints and exports use: path prefix `/{name}/…` and header
     * prefix `{Name}-…`. The server answers under `sonolus` and `service` as well (`protocolNames`).
     */
    name: string
    /** The public address written into every item's `source`; when absent, the request's origin. */
    address?: string
    /** Serve items marked `draft: true`. */
    drafts: boolean
    /** Shelf's state folder (processed resources, hash cache, session secret); `.shelf` inside the content folder by default. */
    cache?: string
    /** Follow changes of the folder while serving. */
    watch?: boolean
    /** Sign-in (E2) and sessions; on unless `enabled` is false. */
    signIn?: Partial<SignInOptions>
    /** No writes at all: no create, action, comment or result forms, and their endpoints answer 404. */
    readOnly?: boolean
    /** How long an upload key waits for its files; 10 minutes by default. */
    uploadKeyLifetimeMs?: number
    /** Web pages for people at `/` (on unless false). */
    web?: boolean
    /** A built official web client to serve at `/` instead of the pages. */
    webClient?: string
    /** Lets a request carrying it as `Authorization: Bearer` see the owner's pages (problems) from anywhere; without it, only from this machine. */
    ownerToken?: string
    /** How long a slow client is waited for; the defaults suit a public server (no flag: for tests and embedding). */
    clientTimeouts?: Partial<ClientTimeouts>
    /** Multiplayer rooms (E6, E7); offered only when a multiplayer server's URL is given. */
    multiplayer?: Pick<MultiplayerOptions, 'url'> & Partial<MultiplayerOptions>
    /**
     * Answer only what a static copy can hold (`shelf export` renders through this): no search
     * forms, no configuration options, a quick search refused with 404, and every query
     * parameter but `localization`, `page` and `cursor` ignored.
     */
    staticExport?: boolean
    /** With `staticExport`: the one locale the web pages are shown in (the content's fallback when absent), whatever the browser asks. */
    exportLocale?: string
    /** Keep guests' answers for the next identical request (on unless false; `shelf export` asks each once). */
    keepAnswers?: boolean
    /** Where replicas share upload keys, rooms, write rates and push signals (`redis://…`); in process when absent. */
    redis?: string
    /** Requests come through a reverse proxy: the client's address is its `X-Forwarded-For`, and no request is the owner's for coming from loopback. */
    trustProxy?: boolean
    /** Player writes as git commits, and following a remote (--git, --git-pull, --git-push). */
    git?: GitOptions
    /** Bounds of a chart's conversion (no flag: the defaults suit any real chart; for tests). */
    chartLimits?: Partial<ConversionLimits>
}

export type GitOptions = {
    /** Follow the current branch's upstream: fetch every `everyMs`, and at once when a webhook signed with `webhookSecret` arrives. */
    pull?: { everyMs: number; webhookSecret?: string }
    /** Push player commits to the upstream after each write. */
    push: boolean
}

export const gitDefaults = { pullEveryMs: 60_000 }

export type SignInOptions = {
    enabled: boolean
    /** A file holding the public JWK that signs sign-in requests; the app's official key by default. */
    signatureKey?: string
    /** The HMAC secret of session tokens; shared by replicas. Generated and kept in the state folder when absent. */
    sessionSecret?: string
    /** How long a session lasts. */
    sessionLifetimeMs: number
    /** How old (or how far ahead of this clock) a signed request's `time` may be. */
    signatureWindowMs: number
}

export type MultiplayerOptions = {
    /** The WebSocket URL of the multiplayer server the app connects to after joining. */
    url: string
    /** How long E6 keeps a room's name and key for its creator to join. */
    reservationMs: number
    /** How long a room stays listed after its last join. */
    lifetimeMs: number
}

export const signInDefaults: SignInOptions = {
    enabled: true,
    sessionLifetimeMs: 30 * 60_000,
    signatureWindowMs: 60_000,
}

export const multiplayerDefaults: Omit<MultiplayerOptions, 'url'> = {
    reservationMs: 5 * 60_000,
    lifetimeMs: 2 * 60 * 60_000,
}

/**
 * The names the protocol answers under, the chosen one first: the app asks for `/sonolus/…`
 * with `Sonolus-*` headers, the spec names it `service`, and both are always served so that
 * either works from the first start; `--name` only picks the one links, prints and exports use.
 */
export const protocolNames = (chosen: string) => [
    chosen,
    ...['sonolus', 'service'].filter((name) => name !== chosen),
]

/** `service` → `Service`: header names are the protocol name, capitalized. */
export const headerPrefix = (name: string) => name.charAt(0).toUpperCase() + name.slice(1)

/** The protocol's request and response headers under one protocol name. */
export const protocolHeaders = (name: string) => {
    const prefix = headerPrefix(name)
    return {
        version: `${prefix}-Version`,
        session: `${prefix}-Session`,
        signature: `${prefix}-Signature`,
        roomKey: `${prefix}-Room-Key`,
        uploadKey: `${prefix}-Upload-Key`,
    }
}

export type ProtocolHeaders = ReturnType<typeof protocolHeaders>

/** How long Shelf waits on a client, deliberately rather than by Node's defaults. */
export type ClientTimeouts = {
    /** For a request's headers to arrive: a browser or the app sends them at once. */
    headersMs: number
    /** For a whole request to arrive: an upload of 20 MiB over a slow phone link fits. */
    requestMs: number
    /** A connection with nothing moving either way is closed after this. */
    idleMs: number
}

export const defaultClientTimeouts: ClientTimeouts = {
    headersMs: 10_000,
    requestMs: 120_000,
    idleMs: 30_000,
}
