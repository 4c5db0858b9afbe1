import { contentTypeParam } from '../../../path-params.js'
import type { ShelfHandler } from '../../../request-state.js'
import { answerUpload, type Writes } from '../../../submissions.js'

/** E11 `POST /{name}/{type}/upload`: the files of a create form. */
export const postItemCreateUpload =
    (writes: Writes): ShelfHandler =>
    async (ctx) => {
        contentTypeParam(ctx)
        await answerUpload(ctx, writes)
    }
