/**
 * Quick searches a player might type into a generated tree, made of the words its titles,
 * descriptions, artists and authors are drawn from: whole words, the first letters of a word,
 * two words, a name. Each matches a few percent of the levels (a word of a title is in about one
 * title in forty, and in some descriptions), as `dream` does.
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
        ...adjectives.map((adjective, index) => `${adjective} ${nouns[(index * 7) % nouns.length]}`),
        ...ARTISTS.map((artist) => artist.toLowerCase()),
        ...AUTHORS.map((author) => author.toLowerCase()),
    ]
}
