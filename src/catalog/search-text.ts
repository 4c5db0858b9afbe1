import { allVariants, type LocalizedText } from '../content/text.js'
import type { CatalogItem } from './catalog.js'

// Made once per item: items are shared between snapshots, so an edit recomputes only the items it changed.
const searchTexts = new WeakMap<CatalogItem, string>()

/**
 * Lower-cased text of every searchable field in every language, one a line: the name, then the
 * title in each language, then the other fields.
 */
export const composeSearchText = (item: CatalogItem): string => {
    const { title, subtitle, artists, author, description, tags, rating } = item.fields
    // Added to a string, not gathered in arrays and joined: an index is built while the first
    // scan serves requests, and its garbage is what the collector holds them for.
    let text = withLines(item.name, title)
    text = withLines(text, subtitle)
    text = withLines(text, artists)
    text = withLines(text, author)
    text = withLines(text, description)
    for (const tag of tags) text = withLines(text, tag.title)
    return `${text}\n${item.type === 'level' ? String(rating) : ''}`.toLowerCase()
}

/** `text` then each variant of `value`, a line each (`allVariants` without its array). */
const withLines = (text: string, value: LocalizedText | undefined) => {
    if (value === undefined) return text
    if (typeof value === 'string') return `${text}\n${value}`
    let lines = text
    // Its own keys in `Object.values`' order: a record read from JSON or YAML inherits none.
    for (const locale in value) lines = `${lines}\n${value[locale]}`
    return lines
}

/** `composeSearchText`, kept per item for the searches without an index. */
export const searchTextOf = (item: CatalogItem): string => {
    let text = searchTexts.get(item)
    if (text === undefined) {
        text = composeSearchText(item)
        searchTexts.set(item, text)
    }
    return text
}

/** Where `searchTextOf(item)` holds the title: the lines after the name's, one a language. */
export type TitleSpan = { start: number; end: number }

export const titleSpanOf = (item: CatalogItem): TitleSpan => {
    // Lower-casing may change a text's length (İ is two characters lower-cased), so the title is measured lower-cased.
    const start = item.name.length + 1
    return { start, end: start + allVariants(item.fields.title).join('\n').toLowerCase().length }
}

/** Letters and digits: what the words of a text are made of; everything else separates them. */
const letterOrDigit = /^[\p{L}\p{N}]+$/u

export const isWord = (term: string) => letterOrDigit.test(term)

/** Per UTF-16 code unit past ASCII, whether it is a letter or digit: 0 not known yet, 1 it is, 2 it is not. */
const knownLetterOrDigit = new Uint8Array(0x10000)

const isLetterOrDigit = (codePoint: number | undefined) => {
    if (codePoint === undefined) return false
    if (codePoint < 128)
        return (
            (codePoint >= 48 && codePoint <= 57) ||
            (codePoint >= 97 && codePoint <= 122) ||
            (codePoint >= 65 && codePoint <= 90)
        )
    if (codePoint > 0xffff) return letterOrDigit.test(String.fromCodePoint(codePoint))
    let known = knownLetterOrDigit[codePoint]!
    if (known === 0)
        knownLetterOrDigit[codePoint] = known = letterOrDigit.test(String.fromCharCode(codePoint))
            ? 1
            : 2
    return known === 1
}

/** Where the run from `from` of characters that are letters or digits (`inWord`), or are not, ends. */
const runEnd = (text: string, from: number, inWord: boolean) => {
    let at = from
    while (at < text.length) {
        const codePoint = text.codePointAt(at)!
        if (isLetterOrDigit(codePoint) !== inWord) return at
        at += codePoint > 0xffff ? 2 : 1
    }
    return text.length
}

/**
 * Hands over where each word of a text (a run of letters and digits) begins and ends, in order,
 * without making it a string.
 */
export const forEachWord = (text: string, visit: (start: number, end: number) => void) => {
    for (let start = runEnd(text, 0, false); start < text.length;) {
        const end = runEnd(text, start, true)
        visit(start, end)
        start = runEnd(text, end, false)
    }
}

/**
 * The words of a text. A term that is a word itself is in a text exactly when it is in one of the
 * text's words, which is what lets an index of words answer substring searches.
 */
export const wordsOf = (text: string) => {
    const words: string[] = []
    forEachWord(text, (start, end) => words.push(text.slice(start, end)))
    return words
}

const codePointBefore = (text: string, index: number) => {
    if (index === 0) return undefined
    const low = text.charCodeAt(index - 1)
    const high = index >= 2 ? text.charCodeAt(index - 2) : 0
    return low >= 0xdc00 && low <= 0xdfff && high >= 0xd800 && high <= 0xdbff
        ? text.codePointAt(index - 2)
        : low
}

/** Whether a word of the text (a run of letters and digits) is `term` itself. */
export const holdsWholeWord = (text: string, term: string) => {
    if (!isWord(term)) return false
    for (let at = text.indexOf(term); at >= 0; at = text.indexOf(term, at + 1)) {
        if (
            !isLetterOrDigit(codePointBefore(text, at)) &&
            !isLetterOrDigit(text.codePointAt(at + term.length))
        )
            return true
    }
    return false
}
