import { refreshComments } from '../../../../../../answers/community.js'
import { commentFolderOf, writeComment } from '../../../../../../writes/comments.js'
import { HttpError } from '../../../../../http-error.js'
import { itemParam } from '../../../../../path-params.js'
import type { ShelfHandler } from '../../../../../request-state.js'
import {
    answerSubmit,
    countWrite,
    expectedFiles,
    readSubmission,
    type Writes,
} from '../../../../../submissions.js'

/**
 * E16 `POST /{name}/{type}/{itemName}/community/submit`: a community action (`comment` posts one,
 * written as `<type>/<item>/comments/<name>.md`).
 */
export const postCommunityAction =
    (writes: Writes): ShelfHandler =>
    async (ctx) => {
        const item = itemParam(ctx)
        const { settings } = ctx.state.shelf.catalog
        const submission = await readSubmission(
            ctx,
            settings.types[item.type].community,
            'community',
        )
        const folder = commentFolderOf(item)
        const content = String(
            submission.values.find((value) => value.query === 'content')?.value ?? '',
        ).trim()
        if (!content)
            throw new HttpError(400, 'option "content" is required: the text of the comment')
        const { user } = submission
        countWrite(ctx, writes, 'comments', user)
        await answerSubmit(
            ctx,
            writes,
            { user, did: `commented on ${folder}` },
            expectedFiles(submission),
            async () => {
                await writeComment(writes.writer, folder, user, content)
                return refreshComments
            },
        )
    }
