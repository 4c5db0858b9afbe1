import { commentsPage } from '../../../../../../web/community-pages.js'
import type { PageRoutes } from '../../../../../page-route.js'

/** `GET /{type}/{itemName}/community/comments/list`: a page of an item's comments. */
export const getCommentsPage = (pages: PageRoutes) =>
    pages.withItem((request, item) => commentsPage(request, item))
