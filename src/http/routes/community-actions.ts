import type Router from '@koa/router'
import type { ServerSubmitItemCommunityActionResponse } from '@sonolus/core'
import { stringify } from 'yaml'
import { displayName, type SessionUser } from '../../auth/sessions.js'
import { generatedName, itemLocation } from '../../writes/content-writer.js'
import { mayModify } from '../../writes/permissions.js'
import { HttpError, notFound } from '../http-error.js'
import type { ShelfContext } from '../request-state.js'
import { itemParam } from '../respond.js'
import {
    answerSubmit,
    answerUpload,
    countWrite,
    expectedFiles,
    readSubmission,
    type Writes,
} from '../submissions.js'

type CommunityFlags = Omit<ServerSubmitItemCommunityActionResponse, 'key' | 'hashes'>

/** After a comment is posted or removed: reload the community and show the first page, where the newest are. */
const refreshComments: CommunityFlags = {
    shouldUpdateCommunity: true,
    shouldUpdateComments: true,
    shouldNavigateCommentsToPage: 0,
}

/**
 * E16, E17: community actions (`comment` posts one, written as `<type>/<item>/comments/<name>.md`).
 * E19, E20: comment actions (`delete`, for the comment's author and the admins).
 */
export const communityActionRoutes = (router: Router, writes: Writes) => {
    const postComment = writes.jobs.define(
        'comment',
        async ({
            folder,
            content,
            user,
        }: {
            folder: string
            content: string
            user: SessionUser
        }) => {
            const frontMatter = stringify(
                { author: displayName(user), authorId: user.id, time: new Date().toISOString() },
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
    const deleteComment = writes.jobs.define(
        'delete comment',
        async ({ file }: { file: string }) => {
            await writes.writer.updateFiles([{ path: file, required: true }])
            return refreshComments
        },
    )

    router.post('/:type/:itemName/community/submit', async (ctx) => {
        const item = itemParam(ctx as ShelfContext)
        const { settings } = (ctx as ShelfContext).state.shelf.catalog
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
        await countWrite(ctx, writes, 'comments', user)
        await answerSubmit(
            ctx,
            writes,
            { user, did: `commented on ${folder}` },
            expectedFiles(submission),
            postComment({ folder, content, user }),
        )
    })

    router.post('/:type/:itemName/community/upload', async (ctx) => {
        itemParam(ctx as ShelfContext)
        await answerUpload(ctx, writes)
    })

    router.post('/:type/:itemName/community/comments/:commentName/submit', async (ctx) => {
        const item = itemParam(ctx as ShelfContext)
        const name = String(ctx.params.commentName)
        const comment =
            item.comments.find((candidate) => candidate.name === name) ??
            notFound(`no comment "${name}" on ${item.type} "${item.name}"`)
        const { settings } = (ctx as ShelfContext).state.shelf.catalog
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
            deleteComment({ file: comment.file }),
        )
    })

    router.post('/:type/:itemName/community/comments/:commentName/upload', async (ctx) => {
        itemParam(ctx as ShelfContext)
        await answerUpload(ctx, writes)
    })
}
