import type { RouterMiddleware } from '@koa/router'
import type { LivePreview } from '../../../web/live-preview.js'

/** `GET /_shelf/live`: the live preview's event stream, while the folder is watched. */
export const getLiveEvents =
    (live: LivePreview): RouterMiddleware =>
    (ctx) => {
        ctx.req.socket.setTimeout(0)
        ctx.req.socket.setNoDelay(true)
        // An endless answer is written by the live preview itself, not by Koa.
        ctx.respond = false
        live.open(ctx.res)
    }
