import type { ServerOption } from '@sonolus/core'
import { protocolTypes, type ProtocolType } from './item-types.js'
import type { BoardDeclaration } from './records.js'
import type { Resource } from './resources.js'
import type { LocalizedText } from './text.js'

export type SortKey = 'time' | 'title' | 'rating' | 'name' | 'author'

/** A protocol option as declared in server.yaml, plus what Shelf does with its value. */
export type OptionDeclaration = {
    query: string
    type: ServerOption['type']
    name: LocalizedText
    description?: LocalizedText
    required?: boolean
    def?: unknown
    placeholder?: LocalizedText
    limit?: number
    shortcuts?: string[]
    min?: number
    max?: number
    step?: number
    unit?: LocalizedText
    values?: { name: string; title: LocalizedText; by?: SortKey; order?: 'asc' | 'desc' }[]
    itemType?: string
    infoType?: string
    allowOtherServers?: boolean
    validation?: Record<string, unknown>
    /** File options for a level's data only: the chart formats also taken (src/charts/). */
    charts?: string[]
    filter?: string
    compare?: 'min' | 'max' | 'equal'
    ignore?: string
    sort?: boolean
    /** Configuration options only: the types (plural) whose lists the filter narrows; `[levels]` by default. */
    types?: string[]
}

export type FormDeclaration = {
    type: string
    title: LocalizedText
    icon?: string
    description?: LocalizedText
    help?: LocalizedText
    requireConfirmation?: boolean
    options?: OptionDeclaration[]
}

export type SectionDeclaration = {
    title: LocalizedText
    icon?: string
    description?: LocalizedText
    help?: LocalizedText
    search?: string
    items?: string[]
    limit?: number
}

export type ButtonDeclaration = {
    type: string
    title?: LocalizedText
    icon?: string
    badgeCount?: number
    infoType?: string
    itemName?: string
}

export type TypeSettings = {
    title?: LocalizedText
    paging: 'page' | 'cursor'
    searches: FormDeclaration[]
    sections: SectionDeclaration[]
    /** What a signed-in player may make: a new item of the type, or for rooms a new room's settings. */
    creates: FormDeclaration[]
    /** What an item's author and the admins may do to it (`delete`, `edit`). */
    actions: FormDeclaration[]
    /** What a signed-in player may do in an item's community (`comment`). */
    community: FormDeclaration[]
    /** What may be done to one comment (`delete`, by its author or an admin). */
    commentActions: FormDeclaration[]
    /** Levels only: the forms of the result screen, which submit a replay. */
    results: FormDeclaration[]
}

/** The form types Shelf knows what to do with, per kind of form. */
export const actionFormTypes = {
    actions: ['delete', 'edit'],
    community: ['comment'],
    commentActions: ['delete'],
} as const

/** How many writes of a kind a player, and an address, may make within a window of time. */
export type WriteRate = { perPlayer: number; perAddress: number; perSeconds: number }

/** The kinds of write that are rate-limited: comments, new items (create forms), results of plays. */
export const writeKinds = ['comments', 'creates', 'results'] as const
export type WriteKind = (typeof writeKinds)[number]

/** Upload and write limits (server.yaml `limits`). */
export type Limits = {
    /** The largest file an upload may carry, unless its option's `validation.maxSize` says less. */
    fileBytes: number
} & Record<WriteKind, WriteRate>

/**
 * For a small community server: a player comments a few times a minute and makes a few items an
 * hour; an address (a household, a school behind one router) may hold several players.
 */
export const defaultLimits: Limits = {
    fileBytes: 20 * 1024 * 1024,
    comments: { perPlayer: 10, perAddress: 30, perSeconds: 60 },
    creates: { perPlayer: 10, perAddress: 30, perSeconds: 3600 },
    results: { perPlayer: 60, perAddress: 180, perSeconds: 3600 },
}

const normalizeLimits = (raw: Partial<Record<keyof Limits, unknown>> = {}): Limits => ({
    fileBytes: (raw.fileBytes as number | undefined) ?? defaultLimits.fileBytes,
    ...(Object.fromEntries(
        writeKinds.map((kind) => [
            kind,
            { ...defaultLimits[kind], ...(raw[kind] as Partial<WriteRate> | undefined) },
        ]),
    ) as Record<WriteKind, WriteRate>),
})

export type ServerSettings = {
    /** The file the settings came from, for problems about them. */
    file?: string
    title: LocalizedText
    description?: LocalizedText
    fallbackLocale: string
    buttons?: ButtonDeclaration[]
    configuration: OptionDeclaration[]
    types: Record<ProtocolType, TypeSettings>
    banner?: Resource
    /** Every request but sign-in and resources needs a session. */
    requireAuthentication: boolean
    /** User ids that may edit and delete what anyone made. */
    admins: string[]
    /** Boards of submitted plays every level has, unless it declares its own. */
    boards: BoardDeclaration[]
    /** Players whose plays never rank and whose writes are refused, by id, with the reason. */
    banned: ReadonlyMap<string, string>
    limits: Limits
}

/** Forms of a type Shelf cannot carry out are never offered (the settings checks say so). */
const knownForms = (forms: FormDeclaration[] | undefined, known: readonly string[]) =>
    (forms ?? []).filter((form) => known.includes(form.type))

type RawTypeSettings = Partial<Omit<TypeSettings, 'paging'>> & { paging?: 'page' | 'cursor' }

export const normalizeServerSettings = (
    raw: Record<string, unknown>,
    file: string | undefined,
): ServerSettings => {
    const types = Object.fromEntries(
        protocolTypes.map((type) => {
            const settings = (raw[`${type}s`] as RawTypeSettings | undefined) ?? {}
            return [
                type,
                {
                    title: settings.title,
                    paging: settings.paging ?? 'page',
                    searches: settings.searches ?? [],
                    sections: settings.sections ?? [],
                    creates: settings.creates ?? [],
                    actions: knownForms(settings.actions, actionFormTypes.actions),
                    community: knownForms(settings.community, actionFormTypes.community),
                    commentActions: knownForms(
                        settings.commentActions,
                        actionFormTypes.commentActions,
                    ),
                    results: settings.results ?? [],
                } satisfies TypeSettings,
            ]
        }),
    ) as Record<ProtocolType, TypeSettings>
    return {
        file,
        title: raw.title as LocalizedText,
        description: raw.description as LocalizedText | undefined,
        fallbackLocale: (raw.fallbackLocale as string | undefined) ?? 'en',
        buttons: raw.buttons as ButtonDeclaration[] | undefined,
        configuration:
            (raw.configuration as { options?: OptionDeclaration[] } | undefined)?.options ?? [],
        types,
        requireAuthentication: (raw.requireAuthentication as boolean | undefined) ?? false,
        admins: (raw.admins as string[] | undefined) ?? [],
        boards: (raw.boards as BoardDeclaration[] | undefined) ?? [],
        banned: new Map(
            ((raw.banned as { id: string; reason?: string }[] | undefined) ?? []).map(
                ({ id, reason }) => [id, reason ?? 'banned from this server'],
            ),
        ),
        limits: normalizeLimits(raw.limits as Partial<Record<keyof Limits, unknown>> | undefined),
    }
}

/**
 * What a folder without settings serves under: every default and a neutral title. A new object
 * each time, since a loader sets its banner on it.
 */
export const neutralServerSettings = () => normalizeServerSettings({ title: 'Shelf' }, undefined)
