import type Router from '@koa/router'
import type { ServerCreateItemResponse } from '@sonolus/core'
import { contentTypeInfos, isContentType, type ContentType } from '../../content/item-types.js'
import { generatedName } from '../../writes/content-writer.js'
import { recordFile, recordFromValues, resourceFileName } from '../../writes/item-files.js'
import { HttpError, notFound } from '../http-error.js'
import type { ShelfContext } from '../request-state.js'
import { protocolTypeParam } from '../respond.js'
import {
    answerSubmit,
    answerUpload,
    countWrite,
    expectedFiles,
    readSubmission,
    requireServed,
    type Writes,
} from '../submissions.js'

/** The content type in the path; rooms are made by their own routes, and users are not made here. */
const contentTypeParam = (ctx: ShelfContext): ContentType => {
    const type = protocolTypeParam(ctx)
    return isContentType(type) ? type : notFound(`${type}s cannot be created here`)
}

/**
 * E10 and E11: a player makes a new item with one of the type's create forms. It is written as
 * `<type>/<name>/item.yaml` and its files once every file has arrived, so it appears complete.
 */
export const createRoutes = (router: Router, writes: Writes) => {
    router.post('/:type/create', async (ctx) => {
        const type = contentTypeParam(ctx as ShelfContext)
        const info = contentTypeInfos[type]
        const submission = await readSubmission(
            ctx,
            (ctx as ShelfContext).state.shelf.catalog.settings.types[type].creates,
            `${type} create`,
        )
        const { user } = submission
        const { record, files } = recordFromValues(type, submission.values)
        const missing = info.resources.filter(
            ({ role, optional }) => !optional && !files.some((file) => file.role.role === role),
        )
        if (missing.length)
            throw new HttpError(
                400,
                `a ${type} needs ${missing.map(({ role }) => `"${role}"`).join(', ')}: give a file for each`,
            )
        countWrite(ctx, writes, 'creates', user)
        const name = generatedName()
        const complete = {
            ...record,
            author: record.author ?? user.name,
            authorId: user.id,
            time: new Date().toISOString(),
        }
        await answerSubmit(
            ctx,
            writes,
            { user, did: `created ${info.plural}/${name}` },
            expectedFiles(submission),
            async (uploaded) => {
                const itemFiles: Record<string, Buffer | string> = {
                    'item.yaml': recordFile(complete, user),
                }
                for (const { role, hash, charts } of files) {
                    const bytes = uploaded.get(hash)!
                    itemFiles[resourceFileName(role, bytes, charts)] = bytes
                }
                const unit = await writes.writer.createItem(info.plural, name, itemFiles)
                await requireServed(writes, type, name, unit)
                return { shouldUpdateInfo: true, shouldNavigateToItem: name } satisfies Omit<
                    ServerCreateItemResponse,
                    'key' | 'hashes'
                >
            },
        )
    })

    router.post('/:type/upload', async (ctx) => {
        contentTypeParam(ctx as ShelfContext)
        await answerUpload(ctx, writes)
    })
}
