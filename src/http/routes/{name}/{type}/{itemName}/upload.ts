import { itemParam } from '../../../../path-params.js'
import type { ShelfHandler } from '../../../../request-state.js'
import { answerUpload, type Writes } from '../../../../submissions.js'

/** E14 `POST /{name}/{type}/{itemName}/upload`: the files of an item action. */
export const postItemActionUpload =
    (writes: Writes): ShelfHandler =>
    async (ctx) => {
        itemParam(ctx)
        await answerUpload(ctx, writes)
    }
