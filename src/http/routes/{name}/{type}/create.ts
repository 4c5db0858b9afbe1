import type { ServerCreateItemResponse } from '@sonolus/core'
import type { SessionUser } from '../../../../auth/sessions.js'
import { contentTypeInfos, type ContentType } from '../../../../content/item-types.js'
import { generatedName } from '../../../../writes/content-writer.js'
import { recordFromValues, resourceFileName } from '../../../../writes/item-files.js'
import { createPlayerItem } from '../../../../writes/new-items.js'
import { HttpError } from '../../../http-error.js'
import { contentTypeParam } from '../../../path-params.js'
import type { ShelfHandler } from '../../../request-state.js'
import {
    answerSubmit,
    countWrite,
    expectedFiles,
    readSubmission,
    type Writes,
} from '../../../submissions.js'

/** A create whose files are on their way: the record as it will be written, and which file is which. */
type CreateArgs = {
    type: ContentType
    name: string
    record: Record<string, unknown>
    files: ReturnType<typeof recordFromValues>['files']
    user: SessionUser
}

/**
 * E10 `POST /{name}/{type}/create`: a player makes a new item with one of the type's create
 * forms. It is written as `<type>/<name>/item.yaml` and its files once every file has arrived
 * (E11), so it appears complete.
 */
export const postItemCreate = (writes: Writes): ShelfHandler => {
    const createItem = writes.jobs.define(
        'create',
        async ({ type, name, record, files, user }: CreateArgs, uploaded) => {
            const resources: Record<string, Buffer> = {}
            for (const { role, hash, charts } of files) {
                const bytes = uploaded.get(hash)!
                resources[resourceFileName(role, bytes, charts)] = bytes
            }
            await createPlayerItem(writes, type, name, user, record, resources)
            return { shouldUpdateInfo: true, shouldNavigateToItem: name } satisfies Omit<
                ServerCreateItemResponse,
                'key' | 'hashes'
            >
        },
    )
    return async (ctx) => {
        const type = contentTypeParam(ctx)
        const info = contentTypeInfos[type]
        const submission = await readSubmission(
            ctx,
            ctx.state.shelf.catalog.settings.types[type].creates,
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
        await countWrite(ctx, writes, 'creates', user)
        const name = generatedName()
        const complete = {
            ...record,
            author: record.author ?? user.name,
            authorId: user.id,
            authorHandle: user.handle,
            time: new Date().toISOString(),
        }
        await answerSubmit(
            ctx,
            writes,
            { user, did: `created ${info.plural}/${name}` },
            expectedFiles(submission),
            createItem({ type, name, record: complete, files, user }),
        )
    }
}
