import { listPage } from '../../../web/list-page.js'
import type { PageHandlers } from '../../page-handlers.js'

/** `GET /{type}/list`: a type's list as the app pages it, with its quick search. */
export const getListPage = (pages: PageHandlers) =>
    pages.page((request, ctx) => {
        const type = pages.contentTypeOf(ctx)
        return type && listPage(request, type)
    })
