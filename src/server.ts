import { EventEmitter, once } from 'node:events'
import { stat } from 'node:fs/promises'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join, relative, resolve } from 'node:path'
import { setTimeout as delay, setImmediate as nextTurn } from 'node:timers/promises'
import { AcceptedAddresses, isWildcard } from './auth/addresses.js'
import { createAuth } from './auth/auth.js'
import { sessionSecretFile } from './auth/session-secret.js'
import { ChartRevisions } from './boards/chart-revisions.js'
import { PlayResults } from './boards/play-results.js'
import { Catalog, type CommunitySources } from './catalog/catalog.js'
import { ChartConverter, defaultConversionLimits } from './charts/chart-converter.js'
import { EnginePackages } from './charts/engine-packages.js'
import {
    defaultClientTimeouts,
    multiplayerDefaults,
    protocolHeaders,
    type ShelfOptions,
} from './config.js'
import { Containment } from './content/containment.js'
import { ContentState, unitOf } from './content/content-state.js'
import { warmUpCommentFiles } from './content/comment-warm-up.js'
import { contentTypeInfos, contentTypes } from './content/item-types.js'
import { HashCache } from './content/hash-cache.js'
import type { Problem } from './content/problems.js'
import { ResourceProcessor } from './content/resources.js'
import { prepareStateFolder } from './content/state-folder.js'
import { StartParseCache } from './content/start-parse-cache.js'
import { StartSnapshot } from './content/start-snapshot.js'
import { ContentValidator } from './content/validate.js'
import { openGit, startGit } from './git/content-git.js'
import { isTrackedByGit } from './git/tracked-file.js'
import { UserFiles } from './people/user-files.js'
import { createApp } from './http/app.js'
import { clientTimeoutOptions, closeIdleConnections } from './http/client-timeouts.js'
import { RoomRegistry } from './rooms/room-registry.js'
import { openSharedState } from './shared-state/open-shared-state.js'
import type { Flags } from './http/submissions.js'
import { CatalogUpdates } from './updates/catalog-updates.js'
import { firstRequests, warmUp } from './http/warm-up.js'
import { countServedRequest, servedRequests } from './util/served-requests.js'
import { ContentWriter } from './writes/content-writer.js'
import { removeLeftovers } from './writes/leftovers.js'
import { UploadJobs, UploadKeys } from './writes/upload-keys.js'
import { WriteRates } from './writes/write-rates.js'
import { watchFolder } from './watch/watch-folder.js'
import {
    collectBeforeServing,
    growHeapBy,
    growHeapWhileSmall,
    servingHeapGrowth,
    startHeapGrowth,
} from './util/heap-growth.js'
import { besideServingMs, letRequestsIn, TurnSlices } from './util/turn-slices.js'
import { LivePreview } from './web/live-preview.js'
import { checkWebClient } from './web/web-client.js'

export type ListenOptions = { port: number; host?: string }

/** What one reload did, for the terminal and for tests. */
export type ReloadReport = { paths: string[]; ms: number; problems: Problem[] }

export type RunningShelf = {
    /** `http://host:port` of the listening socket. */
    url: string
    /** The addresses a signed request may name: --address, or every address this server is reached at. */
    addresses: readonly string[]
    port: number
    server: Server
    /** The snapshot being served now; a reload swaps in a new one. */
    catalog(): Catalog
    /** Resolves once every folder is watched (at once when not watching); changes made meanwhile are not lost. */
    watching: Promise<void>
    /** Emits `reload` with a ReloadReport after every change of the folder is served. */
    events: EventEmitter<{ reload: [ReloadReport] }>
    /** What writes cut short by an earlier crash left in the folder, removed once watching (nothing on a read-only server). */
    leftovers: Promise<string[]>
    /** What the owner should fix, said once at start-up. */
    warnings: string[]
    /** The upstream --git-pull and --git-push follow, `origin/main`. */
    gitUpstream?: string
    /** Where upload keys, rooms and write rates live: `in process`, or the Redis address. */
    sharedState: string
    /**
     * How many items the start took from the state folder's snapshot: until `checked`, all it
     * serves from it; from then on, those its checks found unchanged since the last start.
     */
    readonly fromSnapshot: number
    /**
     * Resolves once the catalog is verified: a start from the snapshot serves it at once, then
     * reads again the items its checks found changed while Shelf was stopped (how many it
     * resolves to; 0 for a start that read every folder) and swaps them in, with a `reload` event.
     */
    checked: Promise<number>
    /** Resolves once the snapshot for the next start is written (or found unchanged), after `watching`; `close` does not wait for it. */
    snapshotSaved: Promise<void>
    close(): Promise<void>
}

/**
 * Saving the hash cache writes the whole file (a hundred thousand levels make tens of megabytes,
 * most of them copied as they are), so after reloads it waits for a quiet moment rather than
 * running after every save of a file.
 */
const saveHashesAfterMs = 10_000

/** A save of the state folder that failed is said, not thrown: serving goes on, and the next save tries again. */
const reportFailedSave = (what: string) => (error: unknown) =>
    console.error(`shelf: cannot save ${what}: ${(error as Error).message}`)

const debounced = (task: () => Promise<void>, waitMs: number) => {
    let timer: NodeJS.Timeout | undefined
    const run = () => {
        timer = undefined
        return task().catch(reportFailedSave('the hash cache'))
    }
    return {
        schedule() {
            clearTimeout(timer)
            timer = setTimeout(run, waitMs).unref()
        },
        async flush() {
            if (timer) {
                clearTimeout(timer)
                await run()
            }
        },
    }
}

/** The content folder, absolute; a mistyped --content would otherwise look like an empty server. */
const contentFolder = async (options: ShelfOptions) => {
    const content = resolve(options.content)
    const folder = await stat(content).catch(() => undefined)
    if (!folder?.isDirectory())
        throw new Error(
            `content folder "${options.content}" ${folder ? 'is not a folder' : 'does not exist'} (resolved to ${content})`,
        )
    return content
}

/** Reads the whole folder, keeping it per part so later changes re-read only what they touch. */
const openContent = async (options: ShelfOptions) => {
    const content = await contentFolder(options)
    const stateFolder = resolve(options.cache ?? join(content, '.shelf'))
    await prepareStateFolder(stateFolder)
    // A start from the snapshot keeps nearly all it makes; one that reads every folder makes garbage too.
    growHeapBy(startHeapGrowth)
    const snapshot = StartSnapshot.open(stateFolder, content)
    if (!snapshot.hasUnits) growHeapWhileSmall()
    const hashes = await HashCache.open(join(stateFolder, 'hashes.json'))
    const parseCache = await StartParseCache.open(join(stateFolder, 'parsed.json'))
    const containment = new Containment(content, stateFolder)
    const processor = new ResourceProcessor(stateFolder, hashes)
    const validator = new ContentValidator()
    const converter = new ChartConverter({ ...defaultConversionLimits, ...options.chartLimits })
    // What the first load's listings find of writes cut short, so the sweep after the start lists nothing again.
    const leftovers: string[] = []
    let loaded = false
    const state = new ContentState(content, {
        validator,
        processor,
        containment,
        charts: {
            packages: new EnginePackages(content, join(stateFolder, 'engine-packages.json')),
            converter,
        },
        noticeLeftover: (path) => loaded || leftovers.push(path),
        parseCache,
    })
    await state.loadAll(snapshot)
    const community = openCommunity(content, stateFolder, validator, containment, parseCache)
    /**
     * Once the snapshot's checks are over, reads again what they found changed among the units
     * taken from it; answers their keys.
     */
    const settle = async () => {
        const rejected = await snapshot.rejected()
        if (rejected.length) growHeapBy(servingHeapGrowth)
        // Each step in a turn of its own: at 100,000 levels the checks' answer, the reading
        // again and the next catalog held the loop 40 ms as one turn, between requests.
        await letRequestsIn()
        await state.readAgain(rejected)
        loaded = true
        // What was taken was not looked up: its entries stay. None taken, every item was read and the unseen go.
        if (snapshot.takenCount) hashes.keepUnseen()
        return rejected
    }
    /**
     * Saves what the load made and found, for the next start. Nothing served waits for it, so a
     * server does it once it listens (at a first start of 10,000 levels, 0.3–0.7 s of writing the
     * hash cache and waiting for the disk).
     */
    const persist = async () => {
        await processor.saveCache()
        hashes.release()
        await parseCache.save()
    }
    return {
        settle,
        persist,
        content,
        state,
        processor,
        stateFolder,
        containment,
        community,
        converter,
        validator,
        leftovers,
        snapshot,
    }
}

/** What boards and people are made of besides the items, kept in the state folder across restarts. */
const openCommunity = (
    content: string,
    stateFolder: string,
    validator: ContentValidator,
    containment: Containment,
    parseCache: StartParseCache,
): CommunitySources => {
    const userFiles = new UserFiles(content, validator, containment, (file, text) =>
        parseCache.parse(file, text),
    )
    userFiles.loadAll()
    return {
        plays: PlayResults.open(join(stateFolder, 'plays.jsonl')),
        revisions: ChartRevisions.open(join(stateFolder, 'revisions.jsonl')),
        userFiles,
    }
}

/**
 * The next snapshot of the folder. The plays of new replays are read first (off the main
 * thread, each once: their results are kept), since a snapshot is built in one synchronous step.
 */
const nextCatalog = async (
    state: ContentState,
    community: CommunitySources,
    options: ShelfOptions,
    previous?: Catalog,
) => {
    const content = state.snapshot()
    const replays = [...content.changed]
        .filter((key) => key.startsWith(`${contentTypeInfos.replay.plural}/`))
        .map((key) => content.units.get(key))
        .filter((record) => record !== null && record !== undefined)
    await community.plays.read(replays)
    return new Catalog(content, { drafts: options.drafts, community }, previous)
}

/**
 * One catalog snapshot of a folder, for checking it without serving it. The charts a server of
 * the folder served are read from its state folder, if it has the default one, and nothing is
 * written: a play on an earlier chart is then not taken for one on data never served.
 */
export const loadCatalog = async (options: ShelfOptions) => {
    const { state, community, content, converter, processor, snapshot, settle, persist } =
        await openContent(options)
    await settle()
    growHeapBy(servingHeapGrowth)
    await persist()
    await snapshot.close()
    await converter.close()
    await processor.close()
    const revisions = join(content, '.shelf', 'revisions.jsonl')
    return nextCatalog(
        state,
        {
            ...community,
            plays: PlayResults.open(),
            revisions: ChartRevisions.open(revisions, true),
        },
        options,
    )
}

/**
 * A generated session secret that git tracks is public to whoever reads the repository, who can
 * then sign a session as any player, an admin included.
 */
const startWarnings = async (options: ShelfOptions, stateFolder: string) => {
    if (options.signIn?.sessionSecret !== undefined) return []
    const file = sessionSecretFile(stateFolder)
    if (!(await isTrackedByGit(file))) return []
    const shown = relative(process.cwd(), file) || file
    return [
        `git tracks the session secret ${shown}: anyone who reads the repository can sign in as any player, an admin included. ` +
            `Fix: git rm --cached ${shown}, commit, then delete the file (Shelf makes a new one at the next start; the old one stays in the history, so it must never be used again)`,
    ]
}

/** From this many items on, a start that writes or watches warms up the reading of records and comments before its line. */
const warmedAheadFromItems = 1_000

/**
 * Up to this many items, the served files' table and the search indexes are whole before the
 * listening line (at 10,000 levels 0.15–0.2 s of the start), and nothing of the start's own work
 * is left for the first requests. Built after the line, their slices and the index worker
 * competed with the first second of serving (with the scan too, when watching): the list's p99
 * during a first scan at 10,000 levels was 2.2–2.3× its p99 after, 1.6–1.8× with them built
 * before, in alternated runs. A search in that second built its type's index at once, holding
 * every request meanwhile. A larger folder's line comes first: at 100,000 levels they take
 * seconds.
 */
const readyBeforeLineUpToItems = 20_000

/**
 * From this many items on, the watcher's first scan starts this long after the listening line.
 * That first second is when V8 optimizes the request path under the first load (at 10,000
 * levels 150–180 functions, 0.4–0.6 s of compiling on its helper threads after the line), and
 * when the scan's worker would start and compile its own loop beside it. Together they held the
 * first answers: the list's p99 from the line to the end of a first scan at 10,000 levels was
 * 8.9–10.3 ms, against 6.3–7.6 over as long a span of a start without watching (alternated
 * runs). With the scan a second later, 6.9–7.4 against 6.2–7.4: the scan itself costs the
 * answers next to nothing. Nothing is lost meanwhile: the scan counts every change since the
 * reading.
 */
const scanWaitsFromItems = 1_000
const scanAfterLineMs = 1_000

/** Loads the folder and serves it, watching it when asked; resolves once the socket is listening. */
export const startShelf = async (
    options: ShelfOptions,
    listen: ListenOptions,
): Promise<RunningShelf> => {
    const readSince = Date.now()
    if (options.webClient) await checkWebClient(options.webClient)
    // git is checked first: a folder that cannot be committed to is refused before it is read.
    const openedGit = options.git && (await openGit(await contentFolder(options), options.git))
    const shared = await openSharedState(options.redis)
    const { snapshot, settle, persist, ...opened } = await openContent(options)
    const { content, state, processor, stateFolder, containment, community, converter, leftovers } =
        opened
    // Built from the snapshot while its checks run, and served from the listening line on.
    let catalog = await nextCatalog(state, community, options)
    const hashesSaver = debounced(() => processor.saveCache(), saveHashesAfterMs)
    const live =
        options.watch && options.web !== false && !options.webClient ? new LivePreview() : undefined
    let reloads = 0
    let fromSnapshot = snapshot.takenCount
    const events = new EventEmitter<{ reload: [ReloadReport] }>()
    /**
     * Once the snapshot's checks answer (at 100,000 levels after the line: the worker's 600,000
     * stat calls took as long as everything else before it), what they found changed while
     * Shelf was stopped is read again and swapped in as a reload is. Reloads wait for it, so that
     * no change made since is read before one made while stopped.
     */
    // Not held for the line: git's first pull, before it, waits for a reload, and reloads for this.
    // Nor run before it: checks that answer first (a quiet machine, or a small folder) would put
    // the reading again, a new catalog and the saves of the caches before the line. So it starts
    // in the turn after the line, or at the first reload asked, whichever comes first.
    let letChecksSettle = () => {}
    const settleAllowed = new Promise<void>((allow) => (letChecksSettle = allow))
    const checked = settleAllowed
        .then(async () => {
            await snapshot.checksOver()
            const started = performance.now()
            const rejected = await settle()
            fromSnapshot = snapshot.takenCount
            if (rejected.length) {
                await letRequestsIn()
                catalog = await nextCatalog(state, community, options, catalog)
                events.emit('reload', {
                    paths: rejected,
                    ms: performance.now() - started,
                    problems: catalog.problems,
                })
                live?.changed(++reloads)
                // What waited for the checks (a reload asked meanwhile, the saves) goes on in a
                // turn of its own, not in the catalog's.
                await letRequestsIn()
            }
            return rejected.length
        })
        .catch((error: unknown) => {
            console.error(
                `shelf: cannot read again what changed while stopped: ${(error as Error).message}`,
            )
            return 0
        })
        .finally(() => {
            // Not before: what the checks found changed keeps no record served before it.
            // A unit that changes keeps what served under its name, for a new record with broken references.
            state.servedItem = (key) => {
                const { type, name } = unitOf(key)
                return catalog.get(type, name)
            }
        })
    const updates = new CatalogUpdates(
        content,
        async (paths) => {
            letChecksSettle()
            await checked
            const started = performance.now()
            await state.reload(paths)
            community.userFiles?.reload(paths)
            // The reading and the next catalog in turns of their own (together 20-40 ms at
            // 100,000 levels).
            await letRequestsIn()
            // The swap is one assignment: a request holds the snapshot it started with to its end.
            catalog = await nextCatalog(state, community, options, catalog)
            events.emit('reload', {
                paths,
                ms: performance.now() - started,
                problems: catalog.problems,
            })
            live?.changed(++reloads)
            hashesSaver.schedule()
        },
        options.watch === true,
    )
    const git = openedGit
        ? await startGit(openedGit, shared, (paths) => updates.applyWritten(paths))
        : undefined
    // The port is known only once listening, and the addresses sign-in accepts depend on it.
    const timeouts = { ...defaultClientTimeouts, ...options.clientTimeouts }
    const server = createServer(clientTimeoutOptions(timeouts))
    closeIdleConnections(server, timeouts.idleMs)
    server.listen(listen.port, listen.host)
    await once(server, 'listening')
    growHeapBy(servingHeapGrowth)
    const { port } = server.address() as AddressInfo
    const addresses = new AcceptedAddresses(options.address, { host: listen.host, port })
    const auth = await createAuth(options, stateFolder, addresses).catch(async (error: unknown) => {
        server.close()
        await git?.close()
        await shared.close()
        throw error
    })
    const multiplayer = options.multiplayer && {
        url: options.multiplayer.url,
        rooms: new RoomRegistry(shared, { ...multiplayerDefaults, ...options.multiplayer }),
    }
    // Players write only as themselves, so without sign-in the server is read-only too.
    const writes =
        options.readOnly || !auth.signInEnabled
            ? undefined
            : {
                  writer: new ContentWriter(content, updates, git?.written),
                  currentCatalog: () => catalog,
                  uploads: new UploadKeys(shared, options.uploadKeyLifetimeMs),
                  jobs: new UploadJobs<Flags>(),
                  rates: new WriteRates(shared),
                  uploadFolder: join(stateFolder, 'uploads'),
                  uploadKeyHeader: protocolHeaders(options.name).uploadKey,
                  contentRoot: content,
              }
    // Counted for the workers' long work, which gives way while requests come.
    const served = servedRequests()
    server.on('request', () => countServedRequest(served))
    server.on(
        'request',
        createApp(() => catalog, options, { auth, multiplayer, writes, live, containment, git }),
    )
    const host = isWildcard(listen.host) ? 'localhost' : listen.host!
    const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`
    if (catalog.itemCount <= readyBeforeLineUpToItems) {
        const whole = new TurnSlices(Number.POSITIVE_INFINITY)
        await catalog.resources.fillInSlices(whole)
        await catalog.buildSearchIndexesInSlices(whole)
    }
    // Before the listening line, so that the first requests after it find their code compiled;
    // meanwhile git, in a process of its own, says whether it tracks the session secret. What
    // follows the line (a larger folder's fill and indexes, the saves, the watching) starts
    // after it: started before, its turns came between the warm-up's answers and the line
    // waited for them.
    const [warnings] = await Promise.all([
        startWarnings(options, stateFolder),
        warmUp(
            // Every address a wildcard listens on reaches it by the loopback.
            isWildcard(listen.host) ? `http://127.0.0.1:${port}` : url,
            firstRequests(options.name, catalog.items.level.keys().next().value),
        ),
    ])
    // The served files of a larger folder's first catalog go into its table between requests (a
    // look-up puts them all in at once), then each type's search index is built (a search
    // finishes its own at once), in whichever catalog is current: one made meanwhile carries on
    // what the one before began. Nothing waits for either, so their slices are short: they
    // overlap the first scan, whose requests they hold a slice at most.
    const buildSearchIndexes = async () => {
        for (let building = catalog; ; building = catalog) {
            const current = () => building === catalog
            await building.buildSearchIndexes(new TurnSlices(besideServingMs), current)
            if (current()) return
        }
    }
    void catalog.resources.fillInSlices(new TurnSlices(besideServingMs)).then(buildSearchIndexes)
    void nextTurn().then(letChecksSettle)
    // Made packs, the hash cache and the parse cache, once the units found changed are read again.
    const persisted = checked.then(persist).catch(reportFailedSave("the start's caches"))
    // Serving starts before every folder is watched (at a hundred thousand levels chokidar needs
    // longer than the reading), and the watching starts after the listening line (which the
    // caller prints once this resolves; a larger folder's, a second after it): its scan, its
    // worker's start and the worker's listing before it held up the line at 100,000 levels. What
    // changes meanwhile is found by that first scan. It waits for the saves too: a start that
    // read every folder of a hundred thousand levels and wrote its hash cache beside the scan
    // peaked 30-50 MiB higher (once at a gigabyte). Closing ends the wait.
    const closing = new AbortController()
    const scanMayStart = () =>
        delay(catalog.itemCount >= scanWaitsFromItems ? scanAfterLineMs : 0, undefined, {
            signal: closing.signal,
        }).catch(() => undefined)
    const watcher = options.watch
        ? Promise.all([persisted, scanMayStart()])
              .then(() => nextTurn())
              .then(() =>
                  watchFolder(content, (paths) => updates.applyWatched(paths), {
                      readSince,
                      served,
                  }),
              )
        : undefined
    const watching = watcher?.then((started) => started.ready) ?? Promise.resolve()
    // After the start and its own saves, not in their way; only a server whose players write
    // touches the content folder.
    const removedLeftovers = Promise.all([watching, persisted]).then(() =>
        removeLeftovers({
            root: content,
            seen: writes ? leftovers : [],
            uploadFolder: writes?.uploadFolder,
            stateFolders: [stateFolder, processor.processedFolder],
            before: readSince,
        }),
    )
    // Before the listening line rather than in the first write's or edit's turns, during the first
    // scan (at 100,000 levels it lasts half a minute, and writes come during it), or right after
    // the line, where loading gray-matter alone held the first requests 30-40 ms. A small
    // catalog's scan is over in a moment and its writes are few: its start does not spend the time.
    if ((writes || watcher) && catalog.itemCount >= warmedAheadFromItems) {
        warmUpCommentFiles()
        opened.validator.warmUp([...contentTypes, 'comment'])
    }
    // Written once the start is over and every folder watched, out of the requests' way.
    // Its items' bytes are those the load made, on disk first; in the order of the lists.
    const snapshotSaved = Promise.all([watching, persisted])
        .then(() =>
            snapshot.save(
                state.snapshotUnits(),
                state.typeDefaults(),
                Object.values(catalog.listed).map((list) => list.toArray()),
            ),
        )
        .catch(reportFailedSave('the start snapshot'))
    collectBeforeServing()
    return {
        url,
        addresses: addresses.list,
        port,
        server,
        catalog: () => catalog,
        watching,
        events,
        leftovers: removedLeftovers,
        warnings,
        gitUpstream: git?.upstream,
        sharedState: shared.description,
        get fromSnapshot() {
            return fromSnapshot
        },
        checked,
        snapshotSaved,
        close: async () => {
            snapshot.abandon()
            closing.abort()
            await (await watcher)?.close()
            await removedLeftovers.catch(() => undefined)
            await persisted
            await snapshotSaved
            await git?.close()
            live?.close()
            await hashesSaver.flush()
            await shared.close()
            await converter.close()
            await processor.close()
            await new Promise<void>((done, fail) => {
                server.close((error) => (error ? fail(error) : done()))
                server.closeAllConnections()
            })
        },
    }
}
