import type { ShelfHandler } from '../../../../request-state.js'
import { answerUpload, type Writes } from '../../../../submissions.js'

/** E5 `POST /{name}/levels/result/upload`: the files of a submitted result. */
export const postLevelResultUpload =
    (writes: Writes): ShelfHandler =>
    (ctx) =>
        answerUpload(ctx, writes)
