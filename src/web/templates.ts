import { Eta } from 'eta'
import { fileURLToPath } from 'node:url'

/** The templates folder beside `src/` and `dist/` alike (both are one level below the package). */
export const webFolder = fileURLToPath(new URL('../../web/', import.meta.url))

/**
 * Eta with escaping on: `<%= %>` writes text escaped for HTML (attributes included, always
 * quoted in the templates); `<%~ %>` is kept for HTML the pages made themselves (rendered
 * Markdown, QR codes, included templates).
 */
const eta = new Eta({
    views: `${webFolder}templates`,
    autoEscape: true,
    autoTrim: [false, 'nl'],
    cache: true,
})

export const renderTemplate = (name: string, data: object) => eta.render(`./${name}`, data)
