/**
 * Where each answer lives in the exported folder. A request path is a folder holding its answers
 * as files, because one path is both an answer and the parent of others (`/levels/x` and
 * `/levels/x/community/info`). The page or cursor of a list picks the file; every other query
 * parameter is ignored (see the nginx.conf and _redirects written beside it).
 */

/** A list page past the end answers the same empty page whatever its number: one file serves them all. */
export const beyondLastPage = 'beyond'

/** Cursors Shelf hands out are base64url, so they can name a file. */
export const cursorPattern = /^[A-Za-z0-9_-]{1,200}$/

/** Which page of a list: a number, a cursor, or `beyond`, the page past the end (asked as that page number). */
export type PageKey = { page: number } | { cursor: string } | { beyond: number }

/** The file, relative to the exported root, of the answer to `path` (e.g. `/sonolus/levels/list`), at a page of a list. */
export const answerFile = (path: string, key?: PageKey) => `${path.slice(1)}/${fileName(key)}.json`

const fileName = (key: PageKey | undefined) => {
    if (!key) return 'index'
    if ('beyond' in key) return beyondLastPage
    if ('cursor' in key) return `cursor-${key.cursor}`
    // A list's first page is `page-0` whether or not the request names it: a host that rewrites
    // by query parameter (Netlify's _redirects) maps `page=0` and no page to the same file.
    return `page-${key.page}`
}

/** A resource, by hash, at the path its Srl names. */
export const resourceFile = (name: string, hash: string) => `${name}/repository/${hash}`

/**
 * The file of a web page at `path` (`/` included): a folder per path, like the answers, with a
 * page's number or cursor picking the file; a page that is not a list is its list's first page.
 */
export const pageFile = (path: string, query: URLSearchParams) => {
    const cursor = query.get('cursor')
    if (cursor !== null && !cursorPattern.test(cursor))
        throw new Error(
            `the page ${path} links to a cursor that cannot name a file: ${cursor.slice(0, 60)}`,
        )
    const key: PageKey = cursor !== null ? { cursor } : { page: Number(query.get('page') ?? 0) }
    return `${path.slice(1)}${path.endsWith('/') ? '' : '/'}${fileName(key)}.html`
}
