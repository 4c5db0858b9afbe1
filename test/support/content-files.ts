/**
 * Reads the example content folder the way its documentation (docs/content-format.md) describes
 * it, independently of the server's own loader, so tests can derive what responses should hold
 * from the files themselves instead of from the code under test.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { parse } from 'yaml'
import {
    contentTypes,
    protocolTypes,
    type ContentType,
    type ProtocolType,
} from '../../src/content/item-types.js'
import { exampleContent } from './server.js'

const require = createRequire(import.meta.url)

export type Text = string | Record<string, string>

// The names of the types are the protocol's, not the loader's logic: the tests share them.
export { contentTypes, protocolTypes }
export type { ContentType, ProtocolType }

/** `level` → `Level`: the prefix of the response-shape names (`LevelList`, `LevelDetails`). */
export const shapePrefix = <T extends ProtocolType>(type: T) =>
    (type.charAt(0).toUpperCase() + type.slice(1)) as Capitalize<T>

export type ContentRecord = {
    type: ContentType
    name: string
    /** Every field of the record, after the folder's `_defaults.yaml`, with the Markdown body as `description`. */
    fields: Record<string, unknown>
    /** Milliseconds, or undefined when the record has no `time`. */
    time: number | undefined
    draft: boolean
    unlisted: boolean
    folder: string
}

const splitFrontMatter = (text: string): { data: Record<string, unknown>; body: string } => {
    const match = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?([\s\S]*)$/.exec(text)
    if (!match) return { data: {}, body: text.trim() }
    return {
        data: (parse(match[1]!) as Record<string, unknown> | null) ?? {},
        body: match[2]!.trim(),
    }
}

const readRecordFile = (path: string): Record<string, unknown> => {
    const text = readFileSync(path, 'utf8')
    if (path.endsWith('.json')) return JSON.parse(text) as Record<string, unknown>
    if (path.endsWith('.md')) {
        const { data, body } = splitFrontMatter(text)
        return body ? { ...data, description: body } : data
    }
    return (parse(text) as Record<string, unknown> | null) ?? {}
}

const toTime = (value: unknown) =>
    typeof value === 'number' ? value : typeof value === 'string' ? Date.parse(value) : undefined

const toRecord = (
    type: ContentType,
    name: string,
    folder: string,
    fields: Record<string, unknown>,
): ContentRecord => ({
    type,
    name,
    fields,
    time: toTime(fields.time),
    draft: fields.draft === true,
    unlisted: fields.unlisted === true,
    folder,
})

/** Every record of a type, drafts and unlisted ones included. */
export const readRecords = (type: ContentType, root = exampleContent): ContentRecord[] => {
    const folder = join(root, `${type}s`)
    if (!existsSync(folder)) return []
    const defaultsFile = join(folder, '_defaults.yaml')
    const defaults = existsSync(defaultsFile) ? readRecordFile(defaultsFile) : {}
    const records: ContentRecord[] = []
    for (const entry of readdirSync(folder)) {
        if (entry.startsWith('.') || entry.startsWith('_')) continue
        const path = join(folder, entry)
        if (statSync(path).isDirectory()) {
            const file = ['item.json', 'item.yaml', 'item.yml', 'item.md'].find((name) =>
                existsSync(join(path, name)),
            )
            if (file) {
                const fields = { ...defaults, ...readRecordFile(join(path, file)) }
                records.push(toRecord(type, entry, path, { ...packageTexts(fields), ...fields }))
            }
        } else if (type === 'post' && entry.endsWith('.md')) {
            records.push(
                toRecord(type, entry.slice(0, -3), folder, {
                    ...defaults,
                    ...readRecordFile(path),
                }),
            )
        }
    }
    return records
}

/**
 * An engine naming an npm package takes its title, subtitle, author and description from the
 * package's `databaseEngineItem` where its record has none (docs/charts.md).
 */
const packageTexts = (fields: Record<string, unknown>): Record<string, unknown> => {
    if (typeof fields.package !== 'string') return {}
    const { databaseEngineItem } = require(fields.package) as {
        databaseEngineItem: Record<string, unknown>
    }
    const { title, subtitle, author, description } = databaseEngineItem
    return { title, subtitle, author, description }
}

/** Newest first; records without a time last; equal times by name. */
export const newestFirst = (a: ContentRecord, b: ContentRecord) =>
    (b.time ?? -Infinity) - (a.time ?? -Infinity) ||
    (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)

/** What lists, search and sections may show: no drafts, no unlisted items, newest first. */
export const listedRecords = (type: ContentType, root = exampleContent) =>
    readRecords(type, root)
        .filter((record) => !record.draft && !record.unlisted)
        .sort(newestFirst)

export const recordByName = (type: ContentType, name: string, root = exampleContent) => {
    const record = readRecords(type, root).find((entry) => entry.name === name)
    if (!record) throw new Error(`no ${type} "${name}" in ${root}`)
    return record
}

/** The documented rule: the requested locale, then the fallback locale, then the first entry. */
export const localize = (text: unknown, locale: string, fallbackLocale = 'en'): string => {
    if (text === undefined || text === null) return ''
    if (typeof text === 'string') return text
    const map = text as Record<string, string>
    return map[locale] ?? map[fallbackLocale] ?? Object.values(map)[0] ?? ''
}

export const variants = (text: unknown): string[] =>
    text === undefined || text === null
        ? []
        : typeof text === 'string'
          ? [text]
          : Object.values(text as Record<string, string>)

const tagTitles = (record: ContentRecord) =>
    ((record.fields.tags as unknown[] | undefined) ?? []).flatMap((tag) =>
        typeof tag === 'string' ? [tag] : variants((tag as { title?: unknown }).title),
    )

/** Every text quick search looks at, in every language, lower-cased. */
export const searchableTexts = (record: ContentRecord): string[] => {
    const { fields } = record
    return [
        record.name,
        ...['title', 'subtitle', 'artists', 'author', 'description'].flatMap((field) =>
            variants(fields[field]),
        ),
        ...tagTitles(record),
        ...(fields.rating === undefined ? [] : [String(fields.rating)]),
    ].map((text) => text.toLowerCase())
}

/** Quick-search semantics of the protocol (§6.2): every word appears in one of the item's texts. */
export const matchesKeywords = (record: ContentRecord, keywords: string) => {
    const texts = searchableTexts(record)
    return keywords
        .toLowerCase()
        .split(/\s+/)
        .filter(Boolean)
        .every((word) => texts.some((text) => text.includes(word)))
}

export const titleMatches = (record: ContentRecord, phrase: string) =>
    variants(record.fields.title).some((title) =>
        title.toLowerCase().includes(phrase.toLowerCase()),
    )

export const meta = (record: ContentRecord): Record<string, unknown> =>
    (record.fields.meta as Record<string, unknown> | undefined) ?? {}

export type ServerYaml = {
    title: Text
    description?: Text
    fallbackLocale?: string
    configuration?: { options: Record<string, unknown>[] }
} & Record<string, unknown>

export const readServerYaml = (root = exampleContent) =>
    parse(readFileSync(join(root, 'server.yaml'), 'utf8')) as ServerYaml

export type TypeSettingsYaml = {
    title?: Text
    paging?: 'page' | 'cursor'
    searches?: Record<string, unknown>[]
    sections?: { title: Text; icon?: string; search?: string; items?: string[]; limit?: number }[]
}

export const typeSettings = (type: ProtocolType, root = exampleContent): TypeSettingsYaml =>
    (readServerYaml(root)[`${type}s`] as TypeSettingsYaml | undefined) ?? {}

/** Shelf's own annotations on options: they steer the server and never reach the app. */
const shelfOnlyOptionFields = ['filter', 'compare', 'ignore', 'sort', 'types']

const withoutUndefined = <T extends Record<string, unknown>>(object: T): T =>
    Object.fromEntries(Object.entries(object).filter(([, value]) => value !== undefined)) as T

/** A declared option as the protocol's `ServerOption`, with the documented defaults, localized. */
export const expectedOption = (
    option: Record<string, unknown>,
    locale: string,
): Record<string, unknown> => {
    const rendered: Record<string, unknown> = { ...option }
    for (const field of shelfOnlyOptionFields) delete rendered[field]
    rendered.name = localize(option.name, locale)
    rendered.description =
        option.description === undefined ? undefined : localize(option.description, locale)
    rendered.required = option.required ?? false
    if (option.type === 'text' || option.type === 'textArea') {
        rendered.def = option.def ?? ''
        rendered.placeholder = localize(option.placeholder ?? '', locale)
        rendered.limit = option.limit ?? 0
        rendered.shortcuts = option.shortcuts ?? []
    }
    if (option.values) {
        rendered.values = (option.values as { name: string; title: unknown }[]).map(
            ({ name, title }) => ({ name, title: localize(title, locale) }),
        )
    }
    return withoutUndefined(rendered)
}

export const expectedForm = (
    form: Record<string, unknown>,
    locale: string,
): Record<string, unknown> =>
    withoutUndefined({
        type: form.type,
        title: localize(form.title, locale),
        icon: form.icon,
        description:
            form.description === undefined ? undefined : localize(form.description, locale),
        help: form.help === undefined ? undefined : localize(form.help, locale),
        requireConfirmation: form.requireConfirmation ?? false,
        options: ((form.options as Record<string, unknown>[] | undefined) ?? []).map((option) =>
            expectedOption(option, locale),
        ),
    })

export type CommentFile = { name: string; author: Text; time: number; content: string }

/** An item's comments, newest first. */
export const readComments = (
    type: ContentType,
    item: string,
    root = exampleContent,
): CommentFile[] => {
    const folder = join(root, `${type}s`, item, 'comments')
    if (!existsSync(folder)) return []
    return readdirSync(folder)
        .filter((file) => file.endsWith('.md'))
        .map((file) => {
            const { data, body } = splitFrontMatter(readFileSync(join(folder, file), 'utf8'))
            return {
                name: file.slice(0, -3),
                author: data.author as Text,
                time: toTime(data.time)!,
                content: body,
            }
        })
        .sort((a, b) => b.time - a.time || (a.name < b.name ? -1 : 1))
}

export type LeaderboardFile = {
    name: string
    title: Text
    description?: Text
    records: { name: string; rank: string; player: string; value: string; replays: string[] }[]
}

export const readLeaderboards = (
    type: ContentType,
    item: string,
    root = exampleContent,
): LeaderboardFile[] => {
    const folder = join(root, `${type}s`, item, 'leaderboards')
    if (!existsSync(folder)) return []
    return readdirSync(folder)
        .filter((file) => /\.(ya?ml|json)$/.test(file))
        .sort()
        .map((file) => {
            const data = parse(readFileSync(join(folder, file), 'utf8')) as Record<string, unknown>
            const records = (data.records as Record<string, unknown>[]).map((record, index) => ({
                name: record.name === undefined ? String(index + 1) : String(record.name),
                rank: record.rank === undefined ? String(index + 1) : String(record.rank),
                player: String(record.player),
                value: String(record.value),
                replays: (record.replays as string[] | undefined) ?? [],
            }))
            return {
                name: file.replace(/\.(ya?ml|json)$/, ''),
                title: data.title as Text,
                description: data.description as Text | undefined,
                records,
            }
        })
}
