import type { SessionUser } from '../auth/sessions.js'
import { contentTypeInfos, type ContentType } from '../content/item-types.js'
import { Refusal } from '../util/refusal.js'
import { recordFile } from './item-files.js'
import { unitErrors, type WriteTarget } from './write-checks.js'

/**
 * A new item a player made, `<type>/<name>/`: its record as `item.yaml`, saying who made it, and
 * its resource files, by file name. It appears whole, and must then be served.
 */
export const createPlayerItem = async (
    target: WriteTarget,
    type: ContentType,
    name: string,
    user: SessionUser,
    record: Record<string, unknown>,
    files: Record<string, Buffer>,
) => {
    const unit = await target.writer.createItem(contentTypeInfos[type].plural, name, {
        'item.yaml': recordFile(record, user),
        ...files,
    })
    await requireServed(target, type, name, unit)
}

/**
 * After a player's item is written and reloaded, it must be served; if its files have a problem
 * (say, a form that gives no engine while levels need one) they are removed again and the
 * problem is the answer, so nothing half-made stays in the folder.
 */
const requireServed = async (
    target: WriteTarget,
    type: ContentType,
    name: string,
    unit: string,
) => {
    const catalog = target.currentCatalog()
    if (catalog.get(type, name)) return
    const errors = unitErrors(catalog, unit)
    await target.writer.removeItem(...(unit.split('/') as [string, string]))
    throw new Refusal(
        'invalid',
        `the new ${type} was not accepted: ${errors.join('; ') || 'it could not be loaded'}`,
    )
}
