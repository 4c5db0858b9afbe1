import { version } from '@sonolus/core'
import { mkdir, readdir, realpath, writeFile } from 'node:fs/promises'
import { join, relative, resolve, sep, isAbsolute } from 'node:path'
import { protocolHeaders, type ShelfOptions } from '../config.js'
import type { Problem } from '../content/problems.js'
import { startShelf } from '../server.js'
import { AnswerExport } from './export-answers.js'
import { headersFile, nginxConfig, redirectsFile, type HostSettings } from './host-config.js'
import { basePathOf } from '../web/page-frame.js'
import { PageExport } from './export-pages.js'
import { LoopbackClient } from './loopback-client.js'
import { OutputFolder, type OutputReport } from './output-folder.js'

export type ExportOptions = {
    /** The folder written: `public/` to serve, `nginx.conf` beside it, `.cache/` for the next export. */
    out: string
    /** The public address the copy is served at: every item's `source`. */
    address: string
    content: string
    name: string
    drafts: boolean
    /** The one locale exported; the content's fallback locale when absent. */
    locale?: string
    /** Export even when the content has errors (the items they affect are left out, as when serving). */
    allowProblems: boolean
}

export type ExportResult =
    | {
          exported: true
          locale: string
          report: OutputReport
          problems: Problem[]
          resources: number
          ms: number
      }
    | { exported: false; problems: Problem[] }

/** A folder `shelf export` must not write to; the message says why. */
export class ExportRefusal extends Error {}

/** Marks a folder as an export, so that a second export may replace what is in it. */
const markerFile = '.shelf-export'

/**
 * The options of the live server whose guest answers and web pages the export copies: read-only,
 * without sign-in, rooms, search forms, configuration or live preview, its pages in the one locale
 * exported. Tests serve the same to compare with the copy.
 */
export const exportedServerOptions = (
    options: Omit<ExportOptions, 'out' | 'allowProblems'>,
    cache: string,
): ShelfOptions => ({
    content: options.content,
    name: options.name,
    address: options.address,
    drafts: options.drafts,
    cache,
    watch: false,
    readOnly: true,
    signIn: { enabled: false },
    staticExport: true,
    exportLocale: options.locale,
})

/**
 * `shelf export`: the read side of the protocol as files. The real app answers every request,
 * in process, so the files hold the bytes a live server in export mode sends.
 */
export const exportSite = async (options: ExportOptions): Promise<ExportResult> => {
    const started = performance.now()
    const out = await checkedOutFolder(options.out, options.content)
    const shelf = await startShelf(
        { ...exportedServerOptions(options, join(out, '.cache')), keepAnswers: false },
        { port: 0, host: '127.0.0.1' },
    )
    const client = new LoopbackClient(shelf.url)
    try {
        const catalog = shelf.catalog()
        const { problems } = catalog
        if (!options.allowProblems && problems.some((problem) => problem.severity === 'error'))
            return { exported: false, problems }
        const locale = options.locale ?? catalog.settings.fallbackLocale
        const output = new OutputFolder(out)
        const answers = new AnswerExport(client, output, 'public', options.name, locale)
        await answers.run(catalog)
        await answers.copyResources(catalog)
        await new PageExport(
            client,
            output,
            'public',
            options.name,
            basePathOf(options.address),
        ).run(catalog)
        const host: HostSettings = {
            name: options.name,
            versionHeader: protocolHeaders(options.name).version,
            version: version.sonolus,
        }
        await output.put('public/_headers', Buffer.from(headersFile(host)))
        await output.put('public/_redirects', Buffer.from(redirectsFile(host)))
        await output.put('nginx.conf', Buffer.from(nginxConfig(host)))
        await output.removeUnproduced('public')
        return {
            exported: true,
            locale,
            report: output.report,
            problems,
            resources: answers.hashes.size,
            ms: performance.now() - started,
        }
    } finally {
        client.close()
        await shelf.close()
    }
}

const inside = (folder: string, path: string) => {
    const fromFolder = relative(folder, path)
    return (
        fromFolder === '' ||
        (!fromFolder.startsWith(`..${sep}`) && fromFolder !== '..' && !isAbsolute(fromFolder))
    )
}

/**
 * OUT, absolute and ready: never inside the content folder (the export would become content),
 * never holding it, and either empty or an earlier export, because an export removes from it
 * every file it no longer produces.
 */
const checkedOutFolder = async (outOption: string, contentOption: string) => {
    const content = await realpath(resolve(contentOption)).catch(() => {
        throw new ExportRefusal(`content folder "${contentOption}" does not exist`)
    })
    const out = await realpath(resolve(outOption)).catch(() => resolve(outOption))
    if (inside(content, out))
        throw new ExportRefusal(
            `the export folder ${out} is inside the content folder ${content}: choose a folder outside it`,
        )
    if (inside(out, content))
        throw new ExportRefusal(
            `the export folder ${out} holds the content folder ${content}: choose a folder outside it`,
        )
    const entries = await readdir(out).catch(() => undefined)
    if (entries && entries.length > 0 && !entries.includes(markerFile)) {
        throw new ExportRefusal(
            `${out} is not empty and not an earlier export (it has no ${markerFile} file): choose an empty or new folder`,
        )
    }
    await mkdir(out, { recursive: true })
    await writeFile(
        join(out, markerFile),
        'A folder written by `shelf export`; the next export replaces what is in it.\n',
    )
    return out
}
