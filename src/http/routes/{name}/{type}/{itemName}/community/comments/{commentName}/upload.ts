import { itemParam } from '../../../../../../../path-params.js'
import type { ShelfHandler } from '../../../../../../../request-state.js'
import { answerUpload, type Writes } from '../../../../../../../submissions.js'

/** E20 `POST /{name}/{type}/{itemName}/community/comments/{commentName}/upload`: the files of a comment action. */
export const postCommentActionUpload =
    (writes: Writes): ShelfHandler =>
    async (ctx) => {
        itemParam(ctx)
        await answerUpload(ctx, writes)
    }
