import type { Sequence } from '../util/sequence.js'
import { FormValueError, type FormInput } from '../content/form-values.js'

export type Page<T> = { pageCount: number; cursor?: string; items: T[] }

export const pageSizes = { items: 20, comments: 10, records: 10 } as const

/**
 * Cuts one page out of a list, in the protocol's page mode (`page=N`, a page count) or cursor
 * mode (only "next"). A cursor remembers the last name shown, so items added at the top while a
 * player pages through do not shift what comes next; the offset is the fallback when that item
 * is gone.
 */
export const paginate = <T>(
    items: Sequence<T>,
    size: number,
    input: FormInput,
    mode: 'page' | 'cursor',
    nameOf: (item: T) => string,
): Page<T> => {
    if (mode === 'page') {
        const page = parsePage(input.get('page'))
        return {
            pageCount: Math.ceil(items.length / size),
            items: items.slice(page * size, (page + 1) * size),
        }
    }
    const start = cursorStart(items, input.get('cursor'), nameOf)
    const pageItems = items.slice(start, start + size)
    const end = start + pageItems.length
    const last = pageItems.at(-1)
    return {
        pageCount: -1,
        cursor:
            end < items.length && last !== undefined ? encodeCursor(end, nameOf(last)) : undefined,
        items: pageItems,
    }
}

const parsePage = (raw: string | undefined) => {
    if (raw === undefined || raw === '') return 0
    if (!/^\d{1,9}$/.test(raw))
        throw new FormValueError(
            `"page" must be a page number counted from 0, got ${JSON.stringify(raw.slice(0, 40))}`,
        )
    return Number(raw)
}

const encodeCursor = (offset: number, lastName: string) =>
    Buffer.from(JSON.stringify([offset, lastName])).toString('base64url')

const cursorStart = <T>(
    items: Sequence<T>,
    raw: string | undefined,
    nameOf: (item: T) => string,
) => {
    if (raw === undefined || raw === '') return 0
    let decoded: unknown
    try {
        decoded = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'))
    } catch {
        decoded = undefined
    }
    if (
        !Array.isArray(decoded) ||
        typeof decoded[0] !== 'number' ||
        typeof decoded[1] !== 'string' ||
        decoded[0] < 0
    ) {
        throw new FormValueError('"cursor" is not one this server handed out')
    }
    const [offset, lastName] = decoded as [number, string]
    const index = items.findIndex((item) => nameOf(item) === lastName)
    return index >= 0 ? index + 1 : Math.min(offset, items.length)
}
