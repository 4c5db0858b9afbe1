import type { ServerSubmitItemActionResponse } from '@sonolus/core'
import { itemLocation } from '../../../../../writes/content-writer.js'
import { deleteItem, editItem } from '../../../../../writes/item-edits.js'
import { mayModify } from '../../../../../writes/permissions.js'
import type { FormValues } from '../../../../../writes/item-files.js'
import { refuse } from '../../../../../util/refusal.js'
import type { ContentType } from '../../../../../content/item-types.js'
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

type ItemTarget = { type: ContentType; name: string }

const servedItem = (writes: Writes, { type, name }: ItemTarget) =>
    writes.currentCatalog().get(type, name) ??
    refuse('not-found', `${type} "${name}" is no longer on this server`)

/**
 * E13 `POST /{name}/{type}/{itemName}/submit`: what an item's author and the admins may do to it.
 * `delete` removes its files; `edit` rewrites the fields and files its options name, in its
 * `item.yaml`.
 */
export const postItemAction = (writes: Writes, contentRoot: string): ShelfHandler => {
    // The item is found again when the files arrive: it may have changed (or gone) meanwhile.
    const removeItem = writes.jobs.define(
        'delete item',
        async (target: ItemTarget): Promise<ActionFlags> => {
            await deleteItem(writes, servedItem(writes, target))
            return { shouldRemoveItem: true }
        },
    )
    const changeItem = writes.jobs.define(
        'edit item',
        async (
            { values, ...target }: ItemTarget & { values: FormValues },
            uploaded,
        ): Promise<ActionFlags> => {
            await editItem(writes, contentRoot, servedItem(writes, target), values, uploaded)
            return { shouldUpdateItem: true }
        },
    )
    return async (ctx) => {
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
        const target = { type: item.type, name: item.name }
        const act =
            submission.form.type === 'delete'
                ? removeItem(target)
                : changeItem({ ...target, values: submission.values })
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
}
