/**
 * Quick searches a player might type into a generated tree, made of the words its titles,
 * descriptions, artists and authors are drawn from: whole words, the first letters of a word,
 * two words, a name, a level's number, a Japanese title word. Each matches a few percent of the
 * levels (a word of a title is in about one title in forty, and in some descriptions), as `dream`
 * does. Then the broad ones players type as well (BROAD_QUERIES), which match most levels or all
 * of them, and pages past the first of searches of every kind, each right after the page before
 * it, as a player pages. The broad searches are spread through the mix, as they come in a real
 * one, not kept together at its end.
 */
import { ADJECTIVES, ARTISTS, AUTHORS, NOUNS } from './generate-pack-tree.js'

/**
 * Added to each quick search with a number of its own, so that no answer comes from Shelf's
 * per-snapshot cache of answers and every request is a search. Shelf ignores the parameter; the
 * ceiling leaves it out when it looks an answer up.
 */
export const UNCACHED_PARAMETER = 'bench-request'

/** A quick search and the page of it asked for (counted from 0). */
export type QuickSearch = { keywords: string; page: number }

export function quickSearchQueries(): QuickSearch[] {
    const nouns = NOUNS.map((noun) => noun.toLowerCase())
    const adjectives = ADJECTIVES.map((adjective) => adjective.toLowerCase())
    const firstPages = [
        ...nouns,
        ...adjectives,
        ...nouns.map((noun) => noun.slice(0, 4)),
        ...adjectives.map((adjective) => adjective.slice(0, 2)),
        ...adjectives.map(
            (adjective, index) => `${adjective} ${nouns[(index * 7) % nouns.length]}`,
        ),
        ...nouns.map((noun, index) => `${noun} ${adjectives[(index * 3) % adjectives.length]}`),
        ...ARTISTS.map((artist) => artist.toLowerCase()),
        ...AUTHORS.map((author) => author.toLowerCase()),
        ...['夢', '星空', '桜', 'remix', 'extended mix', 'nothing like this'],
        ...[7, 42, 318, 2643, 9001].map((number) => `level ${number}`),
    ].map((keywords) => [{ keywords, page: 0 }])
    // A player who pages goes on from the first page: the pages come one after the other.
    const paged = new Set(['dream', 'neon', 'azure dream', 'mika sato', ...BROAD_QUERIES])
    const pagesOf = (keywords: string) =>
        [0, 1, 2, 4].map((page) => ({ keywords, page })).slice(0, paged.has(keywords) ? 4 : 1)
    const broad = BROAD_QUERIES.map(pagesOf)
    return spread(
        firstPages.map(([first]) => pagesOf(first!.keywords)),
        broad,
    ).flat()
}

/** `many` with `few` put in at even intervals. */
const spread = <T>(many: T[], few: T[]): T[] => {
    const mixed: T[] = []
    const every = many.length / few.length
    let next = 0
    many.forEach((entry, at) => {
        mixed.push(entry)
        while (next < few.length && at + 1 >= (next + 1) * every) mixed.push(few[next++]!)
    })
    return mixed
}

/**
 * Searches matching most or all levels: the word every generated title holds ("Level N · …"),
 * single letters and digits, and two common words.
 */
export const BROAD_QUERIES = [
    'level',
    'a',
    'e',
    's',
    'n',
    'o',
    'i',
    '1',
    '2',
    '7',
    '0',
    'le',
    'level 1',
    'level 2',
    'level chart',
    'chart about',
    'a chart',
]

/** Broad searches timed one request at a time: the word in every title, a letter, a digit. */
export const ALONE_QUERIES = ['level', 'a', 'e', '1']
