import type { ServerSubmitItemCommunityActionResponse } from '@sonolus/core'
import { stringify } from 'yaml'
import { displayName } from '../../../../../../auth/sessions.js'
import { generatedName, itemLocation } from '../../../../../../writes/content-writer.js'
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

type CommunityFlags = Omit<ServerSubmitItemCommunityActionResponse, 'key' | 'hashes'>

/** After a comment is posted or removed: reload the community and show the first page, where the newest are. */
export const refreshComments: CommunityFlags = {
    shouldUpdateCommunity: true,
    shouldUpdateComments: true,
    shouldNavigateCommentsToPage: 0,
}

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
        const { folder } = itemLocation(item)
        if (!folder)
            throw new HttpError(
                400,
                `${item.type} "${item.name}" is a single file (${item.file}), which has no folder for comments`,
            )
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
                const frontMatter = stringify(
                    {
                        author: displayName(user),
                        authorId: user.id,
                        time: new Date().toISOString(),
                    },
                    { lineWidth: 0 },
                )
                await writes.writer.updateFiles([
                    {
                        path: `${folder}/comments/${generatedName()}.md`,
                        bytes: `---\n${frontMatter}---\n${content}\n`,
                    },
                ])
                return refreshComments
            },
        )
    }
