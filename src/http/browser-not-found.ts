import type { Context, Next } from 'koa'

/**
 * A 404 of the protocol, answered to a browser's `fetch` with an empty body, as the official
 * toolkit answers every 404. The official web client parses any 404 body that is JSON as the
 * page it asked for (and an item's details page then stays blank); an empty body fails its
 * parse and it shows its not-found view. The app, which shows `message`, and a person opening
 * the address in a tab still get `{ "message": … }`. A page's fetch is told by its Fetch
 * Metadata (`Sec-Fetch-Dest: empty`; a tab asks for a `document`), which browsers send to secure
 * and local origins; elsewhere (plain http on a LAN address) by the `Referer` a page's fetch
 * carries and the app never sends. (Node's own fetch sends only `Sec-Fetch-Mode`, so it is no browser.)
 */
export const emptyNotFoundForBrowsers =
    (prefixes: string[]) => async (ctx: Context, next: Next) => {
        await next()
        if (
            ctx.status !== 404 ||
            !prefixes.some((prefix) => ctx.path.startsWith(`${prefix}/`)) ||
            !isBrowserFetch(ctx)
        )
            return
        ctx.body = ''
        ctx.remove('Content-Type')
        ctx.vary('Sec-Fetch-Dest')
    }

const isBrowserFetch = (ctx: Context) => {
    const destination = ctx.get('Sec-Fetch-Dest')
    return destination ? destination === 'empty' : ctx.get('Referer') !== ''
}
