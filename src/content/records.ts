import type { ContentType } from './item-types.js'
import { contentTypeInfos } from './item-types.js'
import type { LocalizedText } from './text.js'

/** A board of submitted plays as server.yaml or a level declares it. */
export type BoardDeclaration = {
    name: string
    title: LocalizedText
    description?: LocalizedText
    by: 'arcadeScore' | 'accuracyScore' | 'combo' | 'perfect' | 'great' | 'good' | 'miss'
    order?: 'asc' | 'desc'
}

export type TagRecord = { title?: LocalizedText; icon?: string }

/** A reference as written: one name, several names, or "the engine's default" (null). */
export type ReferenceValue = string | string[] | null

/** An item's fields after validation, with every optional field given its documented default. */
export type ItemFields = {
    title: LocalizedText
    subtitle: LocalizedText
    artists: LocalizedText
    author: LocalizedText
    /** The signed-in player who made the item, when a player did, and their handle then. */
    authorId?: string
    authorHandle?: string
    /** The person `author` names (`users/<name>`), when the record says. */
    authorUser?: string
    description?: LocalizedText
    tags: TagRecord[]
    time?: number
    rating: number
    draft: boolean
    unlisted: boolean
    meta: Record<string, unknown>
    references: Record<string, ReferenceValue>
    /** Replays: the SHA-1 of the level data that was played. */
    levelData?: string
    /** Levels: boards of submitted plays declared for this level instead of the server's. */
    boards?: BoardDeclaration[]
}

type RawRecord = Record<string, unknown>

/** Milliseconds from a number or an ISO date; the schema has already checked the shape. */
export const parseTime = (value: unknown): number | undefined => {
    if (typeof value === 'number') return value
    if (typeof value === 'string') {
        const time = Date.parse(value)
        return Number.isNaN(time) ? undefined : time
    }
    return undefined
}

const normalizeTag = (tag: unknown): TagRecord =>
    typeof tag === 'string' ? { title: tag } : (tag as TagRecord)

const normalizeUse = (value: unknown): ReferenceValue => {
    if (value === undefined) return null
    if (typeof value === 'string') return value
    const use = value as { useDefault: boolean; item?: string }
    return use.useDefault ? null : (use.item ?? null)
}

export const normalizeFields = (type: ContentType, record: RawRecord): ItemFields => {
    const references: Record<string, ReferenceValue> = {}
    for (const { field, shape } of contentTypeInfos[type].references) {
        const value = record[field]
        references[field] =
            shape === 'use'
                ? normalizeUse(value)
                : shape === 'many'
                  ? ((value as string[] | undefined) ?? [])
                  : (value as string)
    }
    return {
        title: record.title as LocalizedText,
        subtitle: (record.subtitle as LocalizedText | undefined) ?? '',
        artists: (record.artists as LocalizedText | undefined) ?? '',
        author: (record.author as LocalizedText | undefined) ?? '',
        authorId: record.authorId as string | undefined,
        authorHandle: record.authorHandle as string | undefined,
        authorUser: record.authorUser as string | undefined,
        description: record.description as LocalizedText | undefined,
        tags: ((record.tags as unknown[] | undefined) ?? []).map(normalizeTag),
        time: parseTime(record.time),
        rating: (record.rating as number | undefined) ?? 0,
        draft: record.draft === true,
        unlisted: record.unlisted === true,
        meta: (record.meta as Record<string, unknown> | undefined) ?? {},
        references,
        levelData: record.levelData as string | undefined,
        boards: record.boards as BoardDeclaration[] | undefined,
    }
}
