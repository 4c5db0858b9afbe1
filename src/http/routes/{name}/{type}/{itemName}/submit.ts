import type { ServerSubmitItemActionResponse } from '@sonolus/core'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { parseDocument } from 'yaml'
import type { CatalogItem } from '../../../../../catalog/catalog.js'
import { candidateFiles } from '../../../../../content/resources.js'
import { itemLocation } from '../../../../../writes/content-writer.js'
import {
    recordFromValues,
    resourceFileName,
    type FormValues,
} from '../../../../../writes/item-files.js'
import { mayModify } from '../../../../../writes/permissions.js'
import type { UploadedFiles } from '../../../../../writes/upload-keys.js'
import { HttpError } from '../../../../http-error.js'
import { itemParam } from '../../../../path-params.js'
import type { ShelfHandler } from '../../../../request-state.js'
import {
    answerSubmit,
    expectedFiles,
    readSubmission,
    unitErrors,
    type Flags,
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
                ? () => deleteItem(writes, item)
                : (uploaded: UploadedFiles) =>
                      editItem(writes, contentRoot, item, submission.values, uploaded)
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

const deleteItem = async (writes: Writes, item: CatalogItem): Promise<Flags> => {
    const { folder, file } = itemLocation(item)
    if (folder) await writes.writer.removeItem(...(folder.split('/') as [string, string]))
    else await writes.writer.updateFiles([{ path: file }])
    return { shouldRemoveItem: true } satisfies ActionFlags
}

const editItem = async (
    writes: Writes,
    contentRoot: string,
    item: CatalogItem,
    values: FormValues,
    uploaded: UploadedFiles,
): Promise<Flags> => {
    const { folder, file } = itemLocation(item)
    if (!folder || !file.endsWith('/item.yaml'))
        throw new HttpError(
            400,
            `${item.type} "${item.name}" is kept as ${file}; only items kept as item.yaml can be edited from the app`,
        )
    // The reads and the writes are one turn of the item's writer: nothing written between them is lost.
    await writes.writer.withItem(folder, async () => {
        const { record, files } = recordFromValues(item.type, values)
        // The document is edited in place, so the comments and layout of a hand-written file survive.
        const document = parseDocument(await readFile(join(contentRoot, file), 'utf8'))
        for (const [field, value] of Object.entries(record)) {
            // `meta` is merged key by key: an edit form need not repeat every key to keep it.
            if (field === 'meta')
                for (const [key, entry] of Object.entries(value as Record<string, unknown>))
                    document.setIn(['meta', key], entry)
            else document.set(field, value)
        }
        const changes: { path: string; bytes?: Buffer | string }[] = []
        for (const { role, hash, charts } of files) {
            const bytes = uploaded.get(hash)!
            const fileName = resourceFileName(role, bytes, charts)
            // The new file replaces whichever file held the role before, whatever its extension.
            changes.push(
                ...candidateFiles(role.role, role.kind)
                    .filter((candidate) => candidate !== fileName)
                    .map((candidate) => ({ path: `${folder}/${candidate}` })),
            )
            changes.push({ path: `${folder}/${fileName}`, bytes })
        }
        changes.push({ path: file, bytes: document.toString({ lineWidth: 0 }) })
        // An edit that breaks the item is undone: the files go back as they were, and the answer says why.
        const before = new Set(unitErrors(writes.currentCatalog(), folder))
        const previous = await Promise.all(
            changes.map(async ({ path }) => ({
                path,
                bytes: await readFile(join(contentRoot, path)).catch(() => undefined),
            })),
        )
        await writes.writer.updateFiles(changes)
        const errors = unitErrors(writes.currentCatalog(), folder).filter(
            (error) => !before.has(error),
        )
        if (errors.length) {
            await writes.writer.updateFiles(previous)
            throw new HttpError(400, `the edit was not accepted: ${errors.join('; ')}`)
        }
    })
    return { shouldUpdateItem: true } satisfies ActionFlags
}
