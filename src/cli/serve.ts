import { statSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { isWildcard, lanAddresses } from '../auth/addresses.js'
import { contentTypeInfos, contentTypes } from '../content/item-types.js'
import { formatProblem } from '../content/problems.js'
import { startShelf, type RunningShelf } from '../server.js'
import { openInSonolusUrl, qrTerminal } from '../web/share.js'
import type { ServeArguments } from './arguments.js'
import { protocolNames, type ShelfOptions } from '../config.js'
import type { ListenOptions } from '../server.js'

export const serve = async ({ options, listen }: ServeArguments) => {
    const started = performance.now()
    // Signals are taken from the start, so that one arriving at any moment ends the process with
    // exit code 0: before Shelf runs there is nothing to close (every write is atomic), after it
    // runs it is closed first.
    let running: RunningShelf | undefined
    const stop = () => {
        void (running?.close() ?? Promise.resolve()).then(() => process.exit(0))
    }
    process.once('SIGINT', stop)
    process.once('SIGTERM', stop)
    const shelf = await startShelf(options, listen)
    running = shelf
    const catalog = shelf.catalog()
    const counts = contentTypes
        .map(
            (type) =>
                [
                    catalog.items[type].size === 1 ? type : contentTypeInfos[type].plural,
                    catalog.items[type].size,
                ] as const,
        )
        .filter(([, count]) => count > 0)
    console.log(
        `Shelf serving ${resolve(options.content)} as "${options.name}" in ${Math.round(performance.now() - started)} ms`,
    )
    console.log(
        `  ${counts.map(([noun, count]) => `${count} ${noun}`).join(', ') || 'no items yet'}`,
    )
    if (catalog.problems.length) {
        console.log(
            `  ${catalog.problems.length} problem${catalog.problems.length === 1 ? '' : 's'}:`,
        )
        for (const problem of catalog.problems) console.log(`    ${formatProblem(problem)}`)
    }
    for (const warning of shelf.warnings) console.log(`  warning: ${warning}`)
    console.log(`listening on ${shelf.url}`)
    if (isWildcard(listen.host)) {
        for (const address of lanAddresses())
            console.log(`  on your network: http://${address}:${shelf.port}`)
    }
    await printWebAndAppLinks(options, shelf, listen)
    if (options.signIn?.enabled === false) {
        console.log('  sign-in is off (--no-sign-in)')
        if (catalog.settings.requireAuthentication)
            console.log(
                '  server.yaml asks for requireAuthentication, which needs sign-in: it is not enforced',
            )
    } else {
        console.log(`  sign-in accepts requests signed for ${shelf.addresses.join(', ')}`)
        if (!options.address)
            console.log(
                '  (a server reached by any other address, a public one say, needs --address)',
            )
    }
    if (options.redis)
        console.log(
            `  sharing upload keys, rooms, write rates and pushes through ${shelf.sharedState}`,
        )
    if (options.multiplayer)
        console.log(`  multiplayer rooms on, played at ${options.multiplayer.url}`)
    if (options.git) {
        const { pull, push } = options.git
        console.log(
            '  player writes are committed to git, one commit each, authored by the player (--git)',
        )
        if (pull)
            console.log(
                `  following ${shelf.gitUpstream} every ${pull.everyMs / 1000} s${pull.webhookSecret ? `, and at once on a signed POST ${shelf.url}/_shelf/git/webhook` : ''}`,
            )
        if (push) console.log(`  pushing player commits to ${shelf.gitUpstream}`)
    }
    if (options.readOnly)
        console.log('  read-only: players cannot create, comment or submit results')
    else if (options.signIn?.enabled !== false)
        console.log(
            '  signed-in players write into this folder through the forms of server.yaml (--read-only turns that off)',
        )
    void shelf.leftovers.then(
        (removed) =>
            removed.length &&
            console.log(
                `removed ${removed.length} leftover${removed.length === 1 ? '' : 's'} of writes an earlier run did not finish`,
            ),
        (error: unknown) =>
            console.error(
                `shelf: cannot remove the leftovers of unfinished writes: ${(error as Error).message}`,
            ),
    )
    // The start served the snapshot of the last run; this says once it is verified (bench/startup.ts reads it).
    if (shelf.fromSnapshot)
        void shelf.checked.then((changed) =>
            console.log(
                `checked the start snapshot after ${Math.round(performance.now() - started)} ms: ${changed === 0 ? 'nothing' : `${changed} item${changed === 1 ? '' : 's'}`} changed while Shelf was stopped${changed ? ', read again' : ''}`,
            ),
        )
    // Until then the start's caches and snapshot are being written beside the requests (bench/run.ts waits for it).
    void shelf.snapshotSaved.then(() =>
        console.log(`the start's saves done after ${Math.round(performance.now() - started)} ms`),
    )
    if (options.watch) {
        console.log(
            `  following changes of the folder; problems also at /_shelf/problems (${ownerPagesFor(options)})`,
        )
        void shelf.watching.then(() =>
            console.log(
                `watching every folder after ${Math.round(performance.now() - started)} ms`,
            ),
        )
        let shown = new Set(catalog.problems.map(formatProblem))
        shelf.events.on('reload', ({ paths, ms, problems }) => {
            const now = new Set(problems.map(formatProblem))
            console.log(
                `reloaded ${describeChange(options.content, paths)} in ${Math.round(ms)} ms`,
            )
            for (const line of now) if (!shown.has(line)) console.log(`    ${line}`)
            for (const line of shown) if (!now.has(line)) console.log(`    fixed: ${line}`)
            shown = now
        })
    }
}

/**
 * What a reload was about, as the owner counts it: the files there now, since a save passes
 * editors' temporary files and folders by too; else the folders made (a new `comments/`, before
 * its first file); else (a deletion) what went.
 */
const describeChange = (content: string, paths: readonly string[]) => {
    const kinds = paths.map((path) => statSync(join(content, path), { throwIfNoEntry: false }))
    const files = paths.filter((_, index) => kinds[index]?.isFile())
    if (files.length === 1) return files[0]
    if (files.length) return `${files.length} files`
    const folders = paths.filter((_, index) => kinds[index]?.isDirectory())
    if (folders.length === 1) return `${folders[0]} (new folder)`
    if (folders.length) return `${folders.length} new folders`
    // A removed folder comes with everything that was in it.
    const [top] = [...paths].sort((a, b) => a.length - b.length)
    return paths.every((path) => path === top || path.startsWith(`${top}/`))
        ? `${top} (removed)`
        : `${paths.length} removed paths`
}

/**
 * Where people browse the content, and the app's link to this server with a QR code a phone can
 * scan (in an interactive terminal only: in a log it is noise).
 */
const printWebAndAppLinks = async (
    options: ShelfOptions,
    shelf: RunningShelf,
    listen: ListenOptions,
) => {
    if (options.webClient)
        console.log(`  the web client in ${resolve(options.webClient)} at ${shelf.url}/`)
    else if (options.web !== false)
        console.log(`  web pages at ${shelf.url}/ (--no-web turns them off)`)
    const [, ...others] = protocolNames(options.name)
    console.log(
        `  the protocol at ${shelf.url}/${options.name}/ (and ${others.map((name) => `/${name}/`).join(', ')}, each with its own headers)`,
    )
    const phone =
        options.address ??
        (isWildcard(listen.host)
            ? lanAddresses().map((address) => `http://${address}:${shelf.port}`)[0]
            : undefined) ??
        shelf.url
    const link = openInSonolusUrl(phone, '/')
    console.log(`  open in the app: ${link} (or add ${phone} as a server in the app)`)
    if (process.stdout.isTTY) console.log((await qrTerminal(link)).replace(/^/gm, '  '))
}

/** Who sees the owner's pages: see http/owner-access.ts. */
const ownerPagesFor = ({ address, trustProxy, ownerToken }: ShelfOptions) => {
    const local = address === undefined && !trustProxy
    if (!ownerToken) return local ? 'from this machine' : 'for nobody: give --owner-token'
    return local ? 'from this machine, or with the owner token' : 'with the owner token'
}
