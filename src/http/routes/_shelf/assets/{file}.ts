import type { RouterMiddleware } from '@koa/router'
import { immutableCacheControl } from '../../../../answers/served-headers.js'
import { assets } from '../../../../web/assets.js'

/** `GET /_shelf/assets/{file}`: the pages' stylesheet and script, kept a year when asked by version. */
export const getAsset: RouterMiddleware = (ctx) => {
    const asset = assets[String(ctx.params.file)]
    if (!asset) return
    ctx.type = asset.type
    ctx.set('Cache-Control', ctx.query.v === asset.version ? immutableCacheControl : 'no-cache')
    ctx.body = asset.body
}
