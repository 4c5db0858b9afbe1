import type { Catalog } from '../catalog/catalog.js'
import type { RequestView } from '../answers/request-view.js'
import type { Srl } from '@sonolus/core'
import { localeName, type PageLocale } from './locale.js'
import { format, uiText, type UiText } from './ui-text.js'
import { assetPaths } from './assets.js'

/** What every page of one request is built from. */
export type PageRequest = {
    catalog: Catalog
    view: RequestView
    page: PageLocale
    t: UiText
    /** The public address of this server (--address, else the request's origin), without a trailing slash. */
    source: string
    /** The path of the pages below the host: --address's path, else nothing. */
    basePath: string
    /** The protocol name, for the open-in-app links (which need `sonolus`). */
    protocolName: string
    /** The live-update endpoint while the folder is watched, and the problems count for the banner. */
    live?: { events: string; problems: string }
    /** The address a phone opens this server at (for the QR codes). */
    phoneAddress: string
}

/** The head and chrome of a page: what the layout template writes around the page's own part. */
export type Frame = {
    lang: string
    title: string
    description?: string
    canonical: string
    image?: string
    ogType: 'website' | 'article'
    noIndex: boolean
}

/** The path of the pages below the host: --address's path without its trailing slash, else nothing. */
export const basePathOf = (address: string | undefined) =>
    address ? new URL(address).pathname.replace(/\/+$/, '') : ''

/** A path below the pages' base, keeping the language the visitor chose. */
export const pageLink = (
    request: PageRequest,
    path: string,
    params: Record<string, string | number | undefined> = {},
) => {
    const query = new URLSearchParams()
    if (request.page.explicit) query.set('lang', request.page.locale)
    for (const [key, value] of Object.entries(params))
        if (value !== undefined && value !== '') query.set(key, String(value))
    const search = query.toString()
    return `${request.basePath}${path}${search ? `?${search}` : ''}`
}

/** A resource's address for an `<img>` or `<audio>`: ours below the base path, another server's only over http(s). */
export const resourceLink = (request: PageRequest, srl: Srl | undefined) => {
    if (!srl?.url) return undefined
    if (srl.url.startsWith('/')) return `${request.basePath}${srl.url}`
    return /^https?:\/\//i.test(srl.url) ? srl.url : undefined
}

/** The absolute address of a page or resource link, for link previews in chats. */
export const absoluteLink = (request: PageRequest, link: string | undefined) => {
    if (!link) return undefined
    return link.startsWith('/') ? `${request.source}${link.slice(request.basePath.length)}` : link
}

/** The canonical address of a page: the public address, without the language unless chosen. */
export const canonicalLink = (
    request: PageRequest,
    path: string,
    params: Record<string, string | number | undefined> = {},
) => `${request.source}${pageLink(request, path, params).slice(request.basePath.length)}`

/** Everything the layout needs besides the frame: languages, banner, assets. */
export const layoutData = (
    request: PageRequest,
    path: string,
    params: Record<string, string | number | undefined>,
) => {
    const { page, t, catalog } = request
    const problems = catalog.problems.length
    return {
        t,
        siteTitle: request.view.renderer.text(catalog.settings.title),
        home: pageLink(request, '/'),
        assets: assetPaths(request.basePath),
        languages:
            page.available.length > 1
                ? page.available.map((locale) => ({
                      name: localeName(locale),
                      locale,
                      href: `${request.basePath}${path}?${new URLSearchParams({ ...definedParams(params), lang: locale })}`,
                      current: locale === page.locale,
                  }))
                : [],
        problemsBanner:
            request.live && problems > 0
                ? {
                      text: problems === 1 ? t.problemBanner : format(t.problemsBanner, problems),
                      href: request.live.problems,
                  }
                : undefined,
        live: request.live?.events,
    }
}

const definedParams = (params: Record<string, string | number | undefined>) =>
    Object.fromEntries(
        Object.entries(params)
            .filter(([, value]) => value !== undefined && value !== '')
            .map(([key, value]) => [key, String(value)]),
    )

/** Makes a page's request context from the view the HTTP edge made for the locale chosen. */
export const pageRequest = (fields: Omit<PageRequest, 't'>): PageRequest => ({
    ...fields,
    t: uiText(fields.page.locale),
})

/** A moment as a date in the page's language, with its machine-readable form. */
export const timeView = (request: PageRequest, time: number) => {
    const date = new Date(time)
    let text: string
    try {
        text = date.toLocaleDateString(request.page.locale, {
            year: 'numeric',
            month: 'long',
            day: 'numeric',
        })
    } catch {
        text = date.toISOString().slice(0, 10)
    }
    return { iso: date.toISOString(), text }
}
