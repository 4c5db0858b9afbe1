import { itemParam } from '../../../../../path-params.js'
import type { ShelfHandler } from '../../../../../request-state.js'
import { answerUpload, type Writes } from '../../../../../submissions.js'

/** E17 `POST /{name}/{type}/{itemName}/community/upload`: the files of a community action. */
export const postCommunityActionUpload =
    (writes: Writes): ShelfHandler =>
    async (ctx) => {
        itemParam(ctx)
        await answerUpload(ctx, writes)
    }
