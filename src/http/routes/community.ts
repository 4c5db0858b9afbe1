import type Router from '@koa/router'
import type { ServerItemCommunityComment, ServerItemCommunityCommentList, ServerItemCommunityInfo } from '@sonolus/core'
import type { CommentRecord } from '../../content/load.js'
import { pageSizes, paginate } from '../pagination.js'
import type { RequestState, ShelfContext } from '../request-state.js'
import { itemParam, respond } from '../respond.js'

/** How many of the newest comments the community block shows before "see all". */
const topCommentCount = 3

/** E15 and E18: an item's comments. */
export const communityRoutes = (router: Router) => {
    router.get('/:type/:itemName/community/info', (ctx) => {
        const item = itemParam(ctx as ShelfContext)
        const state = (ctx as ShelfContext).state.shelf
        respond<ServerItemCommunityInfo>(ctx, {
            actions: [],
            topComments: item.comments.slice(0, topCommentCount).map((comment) => renderComment(state, comment)),
        })
    })

    router.get('/:type/:itemName/community/comments/list', (ctx) => {
        const item = itemParam(ctx as ShelfContext)
        const state = (ctx as ShelfContext).state.shelf
        const page = paginate(item.comments, pageSizes.comments, state.query, 'page', (comment) => comment.name)
        respond<ServerItemCommunityCommentList>(ctx, {
            pageCount: page.pageCount,
            comments: page.items.map((comment) => renderComment(state, comment)),
        })
    })
}

const renderComment = (state: RequestState, comment: CommentRecord): ServerItemCommunityComment => ({
    name: comment.name,
    author: state.renderer.text(comment.author),
    time: comment.time,
    content: comment.content,
    actions: [],
})
