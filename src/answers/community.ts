import type {
    ServerItemCommunityComment,
    ServerItemCommunityCommentList,
    ServerItemCommunityInfo,
    ServerSubmitItemCommunityActionResponse,
} from '@sonolus/core'
import type { CatalogItem } from '../catalog/catalog.js'
import type { ContentType } from '../content/item-types.js'
import type { CommentRecord } from '../content/comment-file.js'
import { mayModify } from '../writes/permissions.js'
import { renderForms } from './forms.js'
import { pageSizes, paginate } from './pagination.js'
import type { RequestView } from './request-view.js'

/** How many of the newest comments the community block shows before "see all". */
const topCommentCount = 3

/** E15: an item's community block, and what the player may do there. */
export const communityInfo = (
    view: RequestView,
    item: CatalogItem,
    writable: boolean,
): ServerItemCommunityInfo => ({
    actions: writable
        ? renderForms(view.catalog.settings.types[item.type].community, view.renderer)
        : [],
    topComments: item.comments
        .slice(0, topCommentCount)
        .map((comment) => renderComment(view, item.type, comment, writable)),
})

/** E18: a page of an item's comments. */
export const commentList = (
    view: RequestView,
    item: CatalogItem,
    writable: boolean,
): ServerItemCommunityCommentList => {
    const page = paginate(
        item.comments,
        pageSizes.comments,
        view.query,
        'page',
        (comment) => comment.name,
    )
    return {
        pageCount: page.pageCount,
        comments: page.items.map((comment) => renderComment(view, item.type, comment, writable)),
    }
}

/** A comment, with the actions its author and the admins may take on it. */
const renderComment = (
    view: RequestView,
    type: ContentType,
    comment: CommentRecord,
    writable: boolean,
): ServerItemCommunityComment => ({
    name: comment.name,
    author: view.renderer.text(comment.author),
    time: comment.time,
    content: comment.content,
    actions:
        writable && mayModify(view.user, comment.authorId, view.catalog.settings.admins)
            ? renderForms(view.catalog.settings.types[type].commentActions, view.renderer)
            : [],
})

/** After a comment is posted or removed: reload the community and show the first page, where the newest are. */
export const refreshComments: Omit<ServerSubmitItemCommunityActionResponse, 'key' | 'hashes'> = {
    shouldUpdateCommunity: true,
    shouldUpdateComments: true,
    shouldNavigateCommentsToPage: 0,
}
