import type { Catalog } from '../catalog/catalog.js'

/** The language a page is shown in, and whether it came from the browser (so the answer varies by it). */
export type PageLocale = {
    locale: string
    explicit: boolean
    negotiated: boolean
    available: string[]
}

/**
 * The app's order: the locale asked for (`?lang=`), else the browser's `Accept-Language`, else
 * the content's `fallbackLocale`. Only locales some text is written in count: any other one reads
 * like the fallback.
 */
export const chooseLocale = (
    catalog: Catalog,
    lang: string | undefined,
    acceptLanguage: string | undefined,
): PageLocale => {
    const fallback = catalog.settings.fallbackLocale
    const available = [...new Set([fallback, ...catalog.locales])].sort()
    if (lang && available.includes(lang))
        return { locale: lang, explicit: true, negotiated: false, available }
    const several = available.length > 1
    const accepted = several
        ? acceptedLocales(acceptLanguage).find((locale) => available.includes(locale))
        : undefined
    return { locale: accepted ?? fallback, explicit: false, negotiated: several, available }
}

/** A static export's pages: one locale, chosen by the export, never by the browser, and no other offered. */
export const exportedLocale = (catalog: Catalog, locale: string | undefined): PageLocale => {
    const chosen = locale && catalog.locales.has(locale) ? locale : catalog.settings.fallbackLocale
    return { locale: chosen, explicit: false, negotiated: false, available: [chosen] }
}

/** `ja-JP,ja;q=0.9,en;q=0.8` → `['ja-jp', 'ja', 'en']` by preference, each tag followed by its language. */
const acceptedLocales = (header: string | undefined): string[] =>
    (header ?? '')
        .split(',')
        .map((part) => {
            const [tag = '', ...params] = part.trim().split(';')
            const q = params
                .map((param) => /^\s*q=([\d.]+)\s*$/.exec(param)?.[1])
                .find((value) => value !== undefined)
            return { tag: tag.trim().toLowerCase(), q: q === undefined ? 1 : Number(q) }
        })
        .filter(({ tag, q }) => tag && tag !== '*' && q > 0)
        .sort((a, b) => b.q - a.q)
        .flatMap(({ tag }) => [tag, tag.split('-')[0]!])

/** A locale's own name, for the language switch (`ja` → 日本語), or the code when unknown. */
export const localeName = (locale: string) => {
    try {
        return new Intl.DisplayNames([locale], { type: 'language' }).of(locale) ?? locale
    } catch {
        return locale
    }
}
