/**
 * Quick searches a player might type into a generated tree, made of the words its titles,
 * descriptions, artists and authors are drawn from: whole words, the first letters of a word,
 * two words, a name. Each matches a few percent of the levels (a word of a title is in about one
 * title in forty, and in some descriptions), as `dream` does. Then the broad ones players type
 * as well (BROAD_QUERIES), which match most levels or all of them.
 */
import { ADJECTIVES, ARTISTS, AUTHORS, NOUNS } from './generate-pack-tree.js'

/**
 * Added to each quick search with a number of its own, so that no answer comes from Shelf's
 * per-snapshot cache of answers and every request is a search. Shelf ignores the parameter; the
 * ceiling leaves it out when it looks an answer up.
 */
export const UNCACHED_PARAMETER = 'bench-request'

export function quickSearchQueries(): string[] {
    const nouns = NOUNS.map((noun) => noun.toLowerCase())
    const adjectives = ADJECTIVES.map((adjective) => adjective.toLowerCase())
    return [
        ...nouns,
        ...adjectives,
        ...nouns.map((noun) => noun.slice(0, 4)),
        ...adjectives.map(
            (adjective, index) => `${adjective} ${nouns[(index * 7) % nouns.length]}`,
        ),
        ...ARTISTS.map((artist) => artist.toLowerCase()),
        ...AUTHORS.map((author) => author.toLowerCase()),
        ...BROAD_QUERIES,
    ]
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
    '1',
    '2',
    '7',
    '0',
    'level 1',
    'level 2',
    'level chart',
    'chart about',
]

/** Broad searches timed one request at a time: the word in every title, a letter, a digit. */
export const ALONE_QUERIES = ['level', 'a', 'e', '1']
