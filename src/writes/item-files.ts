import { stringify } from 'yaml'
import type { SessionUser } from '../auth/sessions.js'
import type { ContentType, ResourceRole } from '../content/item-types.js'
import { contentTypeInfos } from '../content/item-types.js'
import { chartFormatOfBytes } from '../charts/chart-formats.js'
import { contentTypeOfBytes } from '../content/resources.js'
import { Refusal } from '../util/refusal.js'

/** Item fields a form option fills when its query names them; any other option goes into `meta`. */
const textFields = new Set(['title', 'subtitle', 'artists', 'author', 'description'])

const extensionOfType: Record<string, string> = {
    'image/png': 'png',
    'image/jpeg': 'jpg',
    'image/webp': 'webp',
    'audio/mpeg': 'mp3',
    'audio/ogg': 'ogg',
    'audio/wav': 'wav',
    'audio/flac': 'flac',
    'application/zip': 'zip',
}

const isGzip = (bytes: Buffer) => bytes[0] === 0x1f && bytes[1] === 0x8b

const isJson = (bytes: Buffer) => {
    try {
        JSON.parse(bytes.toString('utf8'))
        return true
    } catch {
        return false
    }
}

/**
 * The file name an uploaded resource is kept under, as an author would name it: `cover.png`,
 * `data.json`. Bytes the app already packed (gzip) keep the extensionless name that serves them
 * as they are. Bytes that are not what the role holds are refused, naming the role.
 */
export const resourceFileName = (
    { role, kind }: ResourceRole,
    bytes: Buffer,
    /** The chart formats the file's option takes for a level's data (`charts:` in server.yaml). */
    charts: readonly string[] = [],
): string => {
    if (kind === 'levelData' && charts.length) {
        const chart = chartFormatOfBytes(bytes)
        if (chart && charts.includes(chart.format)) return chart.file
        if (chart)
            throw new Refusal(
                'invalid',
                `the file for "${role}" is a ${chart.title}, which this form does not take (it takes ${charts.join(', ')})`,
            )
    }
    if (kind === 'json' || kind === 'levelData' || kind === 'binary') {
        if (isGzip(bytes)) return role
        if (kind !== 'binary' && isJson(bytes)) return `${role}.json`
        if (kind === 'binary') return `${role}.bin`
        throw new Refusal(
            'invalid',
            `the file for "${role}" is neither JSON nor gzip-compressed JSON${charts.length ? ` nor a chart (${charts.join(', ')})` : ''}`,
        )
    }
    const extension = extensionOfType[contentTypeOfBytes(bytes)]
    const expected = {
        image: ['png', 'jpg', 'webp'],
        audio: ['mp3', 'ogg', 'wav', 'flac'],
        archive: ['zip'],
    }[kind]
    if (!extension || !expected.includes(extension))
        throw new Refusal(
            'invalid',
            `the file for "${role}" must be ${kind === 'archive' ? 'a zip' : `${kind === 'image' ? 'an image' : 'audio'} (${expected.join(', ')})`}`,
        )
    return `${role}.${extension}`
}

/** The record file of an item a player made: YAML, as an author would write it, saying who made it. */
export const recordFile = (record: Record<string, unknown>, user: SessionUser) =>
    // The comment line must stay one line, whatever the profile's name holds.
    `# Made by ${`${user.name}#${user.handle}`.replace(/[\r\n]+/g, ' ')} on this server.\n${stringify(record, { lineWidth: 0 })}`

export type FormValues = { query: string; type: string; value: unknown; charts?: string[] }[]

/**
 * An item record from form values: options named like a field fill it, file options named like a
 * resource role give that file (by hash), and the rest go into `meta`, where search forms can
 * filter on them.
 */
export const recordFromValues = (type: ContentType, values: FormValues) => {
    const info = contentTypeInfos[type]
    const record: Record<string, unknown> = {}
    const meta: Record<string, unknown> = {}
    const files: { role: ResourceRole; hash: string; charts?: string[] }[] = []
    for (const { query, type: optionType, value, charts } of values) {
        const role = info.resources.find((resource) => resource.role === query)
        const reference = info.references.find((candidate) => candidate.field === query)
        if (optionType === 'file') {
            if (role && value !== '') files.push({ role, hash: String(value), charts })
        } else if (textFields.has(query)) {
            if (value !== '') record[query] = value
        } else if (query === 'rating' && type === 'level') {
            record.rating = value
        } else if (reference) {
            const name = referencedName(value)
            if (name) record[query] = name
        } else {
            meta[query] = value
        }
    }
    if (Object.keys(meta).length) record.meta = meta
    return { record, files }
}

/** A serverItem option's value (a Sil, `{ address, name }`) as the name of one of this server's items. */
const referencedName = (value: unknown): string | undefined => {
    if (typeof value === 'string') return value || undefined
    const name = (value as { name?: unknown } | null)?.name
    return typeof name === 'string' ? name : undefined
}
