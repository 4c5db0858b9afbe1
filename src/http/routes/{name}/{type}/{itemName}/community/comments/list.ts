import type { ServerItemCommunityCommentList } from '@sonolus/core'
import { commentList } from '../../../../../../../answers/community.js'
import { itemParam } from '../../../../../../path-params.js'
import type { ShelfHandler } from '../../../../../../request-state.js'
import { respond } from '../../../../../../respond.js'

/** E18 `GET /{name}/{type}/{itemName}/community/comments/list`: a page of an item's comments. */
export const getCommentList =
    (writable: boolean): ShelfHandler =>
    (ctx) =>
        respond<ServerItemCommunityCommentList>(
            ctx,
            commentList(ctx.state.shelf, itemParam(ctx), writable),
        )
