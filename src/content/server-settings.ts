import type { ServerOption } from '@sonolus/core'
import { protocolTypes, type ProtocolType } from './item-types.js'
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
    /** What a signed-in player may make: for rooms, the settings of a new room. */
    creates: FormDeclaration[]
}

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
}

type RawTypeSettings = Partial<Omit<TypeSettings, 'paging'>> & { paging?: 'page' | 'cursor' }

export const normalizeServerSettings = (raw: Record<string, unknown>, file: string | undefined): ServerSettings => {
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
        configuration: (raw.configuration as { options?: OptionDeclaration[] } | undefined)?.options ?? [],
        types,
        requireAuthentication: (raw.requireAuthentication as boolean | undefined) ?? false,
    }
}
