import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { webFolder } from './templates.js'

/** Where the pages' stylesheet and script are served, outside every protocol name. */
export const assetsPrefix = '/_shelf/assets'

type Asset = { body: Buffer; type: string; version: string }

const load = (file: string, type: string): Asset => {
    const body = readFileSync(`${webFolder}static/${file}`)
    return { body, type, version: createHash('sha1').update(body).digest('hex').slice(0, 12) }
}

/**
 * The stylesheet, and the live-update script (a file, so the Content-Security-Policy needs no
 * inline script). Read once; their links carry a hash of their bytes, so browsers keep them.
 */
export const assets: Record<string, Asset> = {
    'shelf.css': load('shelf.css', 'text/css; charset=utf-8'),
    'live.js': load('live.js', 'text/javascript; charset=utf-8'),
    'icon.svg': load('icon.svg', 'image/svg+xml'),
}

export const assetPaths = (basePath: string) => ({
    css: `${basePath}${assetsPrefix}/shelf.css?v=${assets['shelf.css']!.version}`,
    live: `${basePath}${assetsPrefix}/live.js?v=${assets['live.js']!.version}`,
    icon: `${basePath}${assetsPrefix}/icon.svg?v=${assets['icon.svg']!.version}`,
})
