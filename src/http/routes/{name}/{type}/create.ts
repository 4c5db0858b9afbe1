import type { ServerCreateItemResponse } from '@sonolus/core'
import { contentTypeInfos } from '../../../../content/item-types.js'
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

/**
 * E10 `POST /{name}/{type}/create`: a player makes a new item with one of the type's create
 * forms. It is written as `<type>/<name>/item.yaml` and its files once every file has arrived
 * (E11), so it appears complete.
 */
export const postItemCreate =
    (writes: Writes): ShelfHandler =>
    async (ctx) => {
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
                const resources: Record<string, Buffer> = {}
                for (const { role, hash, charts } of files) {
                    const bytes = uploaded.get(hash)!
                    resources[resourceFileName(role, bytes, charts)] = bytes
                }
                await createPlayerItem(writes, type, name, user, complete, resources)
                return { shouldUpdateInfo: true, shouldNavigateToItem: name } satisfies Omit<
                    ServerCreateItemResponse,
                    'key' | 'hashes'
                >
            },
        )
    }
