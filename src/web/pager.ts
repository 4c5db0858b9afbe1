import type { Page } from '../answers/pagination.js'
import { pageLink, type PageRequest } from './page-frame.js'
import { format } from './ui-text.js'

/**
 * Previous and next links of a paged list. A list paged by cursor (the app's "more") knows only
 * its next page, and its first page again.
 */
export const pager = (
    request: PageRequest,
    path: string,
    params: Record<string, string | undefined>,
    page: Page<unknown>,
    pageNumber: number,
    onCursor = false,
) => {
    const { t } = request
    if (page.pageCount === -1) {
        return {
            previous: onCursor ? pageLink(request, path, params) : undefined,
            next: page.cursor
                ? pageLink(request, path, { ...params, cursor: page.cursor })
                : undefined,
            label: '',
        }
    }
    if (page.pageCount <= 1) return undefined
    return {
        previous:
            pageNumber > 0
                ? pageLink(request, path, { ...params, page: pageNumber - 1 || undefined })
                : undefined,
        next:
            pageNumber + 1 < page.pageCount
                ? pageLink(request, path, { ...params, page: pageNumber + 1 })
                : undefined,
        label: format(t.page, Math.min(pageNumber + 1, page.pageCount), page.pageCount),
    }
}
