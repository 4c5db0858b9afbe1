import type { ServerItemSection } from '@sonolus/core'
import type { ItemSequence } from '../catalog/search.js'
import type { ContentType } from '../content/item-types.js'
import type { SectionDeclaration } from '../content/server-settings.js'
import type { RequestView } from './request-view.js'

/** Sections are teasers: a few items, with "More" leading to the full list. */
export const sectionSize = 5

type SectionText = Pick<
    ServerItemSection,
    'title' | 'icon' | 'description' | 'help' | 'searchValues'
>

export const renderSection = (
    view: RequestView,
    itemType: ContentType,
    items: ItemSequence,
    text: SectionText,
): ServerItemSection =>
    ({
        ...text,
        itemType,
        items: items.slice(0, sectionSize).map((item) => view.renderer.item(item)),
    }) as ServerItemSection

export const declaredSectionText = (
    view: RequestView,
    section: SectionDeclaration,
): SectionText => ({
    title: view.renderer.text(section.title),
    icon: section.icon,
    description: view.renderer.optionalText(section.description),
    help: view.renderer.optionalText(section.help),
    // "More" of a section declared as a search leads to that search, which a static export lacks.
    searchValues: view.searchable ? section.search : undefined,
})
