import type { ServerSubmitItemActionResponse } from '@sonolus/core'
import { itemLocation } from '../../../../../writes/content-writer.js'
import { deleteItem, editItem } from '../../../../../writes/item-edits.js'
import { mayModify } from '../../../../../writes/permissions.js'
import type { UploadedFiles } from '../../../../../writes/upload-keys.js'
import { HttpError } from '../../../../http-error.js'
import { itemParam } from '../../../../path-params.js'
import type { ShelfHandler } from '../../../../request-state.js'
import {
    answerSubmit,
    expectedFiles,
    readSubmission,
    type Writes,
} from '../../../../submissions.js'

type ActionFlags = Omit<ServerSubmitItemActionResponse, 'key' | 'hashes'>

/**
 * E13 `POST /{name}/{type}/{itemName}/submit`: what an item's author and the admins may do to it.
 * `delete` removes its files; `edit` rewrites the fields and files its options name, in its
 * `item.yaml`.
 */
export const postItemAction =
    (writes: Writes, contentRoot: string): ShelfHandler =>
    async (ctx) => {
        const item = itemParam(ctx)
        const { settings } = ctx.state.shelf.catalog
        const submission = await readSubmission(
            ctx,
            settings.types[item.type].actions,
            `${item.type} action`,
        )
        if (!mayModify(submission.user, item.fields.authorId, settings.admins)) {
            throw new HttpError(
                403,
                `only the player who made ${item.type} "${item.name}" or an admin may ${submission.form.type} it`,
            )
        }
        const act =
            submission.form.type === 'delete'
                ? async (): Promise<ActionFlags> => {
                      await deleteItem(writes, item)
                      return { shouldRemoveItem: true }
                  }
                : async (uploaded: UploadedFiles): Promise<ActionFlags> => {
                      await editItem(writes, contentRoot, item, submission.values, uploaded)
                      return { shouldUpdateItem: true }
                  }
        const { folder, file } = itemLocation(item)
        const did = `${submission.form.type === 'delete' ? 'deleted' : 'edited'} ${folder ?? file}`
        await answerSubmit(
            ctx,
            writes,
            { user: submission.user, did },
            expectedFiles(submission),
            act,
        )
    }
