import { createHash } from 'node:crypto'
import { isSafeName } from '../content/load.js'
import { localize, type LocalizedText } from '../content/text.js'

/** Who wrote something, as its record says. */
export type Authorship = { author: LocalizedText; authorId?: string; authorUser?: string }

const reserved = new Set(['info', 'list', 'create', 'upload'])
const shortHash = (text: string) => createHash('sha1').update(text).digest('hex').slice(0, 16)

/** A player's page is named by their id, which outlives renames; an id unfit for a path is hashed. */
export const playerPersonName = (id: string) =>
    isSafeName(id) && !reserved.has(id) && id.length <= 64 ? id : `player-${shortHash(id)}`

/** An author named only by text: the text made into a path segment (`Alice Liddell` → `alice-liddell`). */
export const authorPersonName = (author: LocalizedText, fallbackLocale: string) => {
    const text = localize(author, fallbackLocale, fallbackLocale).trim()
    if (!text) return undefined
    const slug = text
        .normalize('NFKD')
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, '-')
        .replace(/^-+|-+$/g, '')
        .slice(0, 64)
    return slug && !reserved.has(slug) ? slug : `author-${shortHash(text)}`
}

/**
 * The person behind a record: the one it names (`authorUser`), else the player who wrote it
 * (`authorId`), else one made from its author's name; none for a record without an author.
 */
export const personOf = (who: Authorship, fallbackLocale: string): string | undefined =>
    who.authorUser ??
    (who.authorId !== undefined
        ? playerPersonName(who.authorId)
        : authorPersonName(who.author, fallbackLocale))
