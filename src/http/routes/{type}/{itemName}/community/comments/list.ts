import { commentsPage } from '../../../../../../web/community-pages.js'
import type { PageHandlers } from '../../../../../page-handlers.js'

/** `GET /{type}/{itemName}/community/comments/list`: a page of an item's comments. */
export const getCommentsPage = (pages: PageHandlers) =>
    pages.withItem((request, item) => commentsPage(request, item))
