import type Router from '@koa/router'
import type {
    ServerItemCommunityComment,
    ServerItemCommunityCommentList,
    ServerItemCommunityInfo,
} from '@sonolus/core'
import type { ContentType } from '../../content/item-types.js'
import type { CommentRecord } from '../../content/load.js'
import { mayModify } from '../../writes/permissions.js'
import { renderForms } from '../../answers/forms.js'
import { pageSizes, paginate } from '../../answers/pagination.js'
import type { RequestState, ShelfContext } from '../request-state.js'
import { itemParam, respond } from '../respond.js'

/** How many of the newest comments the community block shows before "see all". */
const topCommentCount = 3

/** E15 and E18: an item's comments, and what the player may do there. */
export const communityRoutes = (router: Router, writable: boolean) => {
    router.get('/:type/:itemName/community/info', (ctx) => {
        const item = itemParam(ctx as ShelfContext)
        const state = (ctx as ShelfContext).state.shelf
        respond<ServerItemCommunityInfo>(ctx, {
            actions: writable
                ? renderForms(state.catalog.settings.types[item.type].community, state.renderer)
                : [],
            topComments: item.comments
                .slice(0, topCommentCount)
                .map((comment) => renderComment(state, item.type, comment, writable)),
        })
    })

    router.get('/:type/:itemName/community/comments/list', (ctx) => {
        const item = itemParam(ctx as ShelfContext)
        const state = (ctx as ShelfContext).state.shelf
        const page = paginate(
            item.comments,
            pageSizes.comments,
            state.query,
            'page',
            (comment) => comment.name,
        )
        respond<ServerItemCommunityCommentList>(ctx, {
            pageCount: page.pageCount,
            comments: page.items.map((comment) =>
                renderComment(state, item.type, comment, writable),
            ),
        })
    })
}

/** A comment, with the actions its author and the admins may take on it. */
const renderComment = (
    state: RequestState,
    type: ContentType,
    comment: CommentRecord,
    writable: boolean,
): ServerItemCommunityComment => ({
    name: comment.name,
    author: state.renderer.text(comment.author),
    time: comment.time,
    content: comment.content,
    actions:
        writable && mayModify(state.user, comment.authorId, state.catalog.settings.admins)
            ? renderForms(state.catalog.settings.types[type].commentActions, state.renderer)
            : [],
})
