import type { Context, Next } from 'koa'
import { stat } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { sendFile } from '../util/send-file.js'

/**
 * An operator's build of the official Sonolus web client, served instead of the built-in pages:
 * its files as they are, and its `index.html` for every other page path (it routes in the
 * browser), on the same origin as the protocol it calls.
 */
export const webClient = (folder: string, isOwnPath: (path: string) => boolean) => {
    const root = resolve(folder)
    return async (ctx: Context, next: Next) => {
        if ((ctx.method !== 'GET' && ctx.method !== 'HEAD') || isOwnPath(ctx.path)) return next()
        const file = await existingFile(root, ctx.path)
        ctx.status = 200
        ctx.respond = false
        await sendFile(
            ctx.req,
            ctx.res,
            file ? ctx.path : '/index.html',
            { root, index: false, dotfiles: 'deny', maxAge: file ? 3_600_000 : 0 },
            {
                missing: `the web client in ${root} has no index.html`,
                unreadable: 'cannot read the web client',
            },
        )
    }
}

/** The path of a file below the root that the URL names, or nothing (a page path of the client). */
const existingFile = async (root: string, path: string) => {
    let decoded: string
    try {
        decoded = decodeURIComponent(path)
    } catch {
        return undefined
    }
    const full = join(root, decoded)
    if (!full.startsWith(`${root}/`)) return undefined
    const found = await stat(full).catch(() => undefined)
    return found?.isFile() ? full : undefined
}

/** A web client folder must hold the client's `index.html`: a mistyped folder would serve nothing but 404s. */
export const checkWebClient = async (folder: string) => {
    const index = await stat(join(resolve(folder), 'index.html')).catch(() => undefined)
    if (!index?.isFile())
        throw new Error(
            `--web-client folder "${folder}" has no index.html (resolved to ${resolve(folder)}): give the folder of a built web client`,
        )
}
