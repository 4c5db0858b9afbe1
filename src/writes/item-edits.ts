import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { parseDocument } from 'yaml'
import type { ItemRecord } from '../content/load.js'
import { candidateFiles } from '../content/resources.js'
import { Refusal } from '../util/refusal.js'
import { itemLocation } from './content-writer.js'
import { recordFromValues, resourceFileName, type FormValues } from './item-files.js'
import type { UploadedFiles } from './upload-keys.js'
import { unitErrors, type WriteTarget } from './write-checks.js'

/** Removes an item: its folder, or its one file for a single-file post. */
export const deleteItem = async ({ writer }: WriteTarget, item: ItemRecord) => {
    const { folder, file } = itemLocation(item)
    if (folder) await writer.removeItem(...(folder.split('/') as [string, string]))
    else await writer.updateFiles([{ path: file }])
}

/**
 * Rewrites the fields and files an edit form's values name, in the item's `item.yaml`. An edit
 * that breaks the item is undone: the files go back as they were, and the refusal says why.
 */
export const editItem = async (
    target: WriteTarget,
    contentRoot: string,
    item: ItemRecord,
    values: FormValues,
    uploaded: UploadedFiles,
) => {
    const { writer } = target
    const { folder, file } = itemLocation(item)
    if (!folder || !file.endsWith('/item.yaml'))
        throw new Refusal(
            'invalid',
            `${item.type} "${item.name}" is kept as ${file}; only items kept as item.yaml can be edited from the app`,
        )
    // The reads and the writes are one turn of the item's writer: nothing written between them is lost.
    await writer.withItem(folder, async () => {
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
        const before = new Set(unitErrors(target.currentCatalog(), folder))
        const previous = await Promise.all(
            changes.map(async ({ path }) => ({
                path,
                bytes: await readFile(join(contentRoot, path)).catch(() => undefined),
            })),
        )
        await writer.updateFiles(changes)
        const errors = unitErrors(target.currentCatalog(), folder).filter(
            (error) => !before.has(error),
        )
        if (errors.length) {
            await writer.updateFiles(previous)
            throw new Refusal('invalid', `the edit was not accepted: ${errors.join('; ')}`)
        }
    })
}
