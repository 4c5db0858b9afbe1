import { localize as localizeText } from '@sonolus/core'

/** A text of the content folder: the same for every language, or one entry per locale code. */
export type LocalizedText = string | Record<string, string>

export const localize = (
    text: LocalizedText | undefined,
    locale: string,
    fallbackLocale: string,
): string => {
    if (text === undefined) return ''
    return typeof text === 'string' ? text : localizeText(text, locale, fallbackLocale)
}

/** Every variant of a text, for search: a player may type a title in any of its languages. */
export const allVariants = (text: LocalizedText | undefined): string[] => {
    if (text === undefined) return []
    return typeof text === 'string' ? [text] : Object.values(text)
}

export const localesOf = (text: LocalizedText | undefined): string[] =>
    text === undefined || typeof text === 'string' ? [] : Object.keys(text)
