import { refreshComments } from '../../../../../../../../answers/community.js'
import { removeComment } from '../../../../../../../../writes/comments.js'
import { itemLocation } from '../../../../../../../../writes/content-writer.js'
import { mayModify } from '../../../../../../../../writes/permissions.js'
import { HttpError, notFound } from '../../../../../../../http-error.js'
import { itemParam } from '../../../../../../../path-params.js'
import type { ShelfHandler } from '../../../../../../../request-state.js'
import {
    answerSubmit,
    expectedFiles,
    readSubmission,
    type Writes,
} from '../../../../../../../submissions.js'

/**
 * E19 `POST /{name}/{type}/{itemName}/community/comments/{commentName}/submit`: a comment action
 * (`delete`, for the comment's author and the admins).
 */
export const postCommentAction =
    (writes: Writes): ShelfHandler =>
    async (ctx) => {
        const item = itemParam(ctx)
        const name = String(ctx.params.commentName)
        const comment =
            item.comments.find((candidate) => candidate.name === name) ??
            notFound(`no comment "${name}" on ${item.type} "${item.name}"`)
        const { settings } = ctx.state.shelf.catalog
        const submission = await readSubmission(
            ctx,
            settings.types[item.type].commentActions,
            'comment action',
        )
        if (!mayModify(submission.user, comment.authorId, settings.admins)) {
            throw new HttpError(
                403,
                `only the player who wrote this comment or an admin may ${submission.form.type} it`,
            )
        }
        const own = comment.authorId === submission.user.id
        const did = `deleted ${own ? 'a' : `${comment.author}'s`} comment on ${itemLocation(item).folder ?? item.file}`
        await answerSubmit(
            ctx,
            writes,
            { user: submission.user, did },
            expectedFiles(submission),
            async () => {
                await removeComment(writes.writer, comment)
                return refreshComments
            },
        )
    }
