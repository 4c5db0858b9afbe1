import type {
    ServerItemDetails,
    ServerItemInfo,
    ServerItemList,
    ServerItemSection,
    UserItem,
} from '@sonolus/core'
import type { CatalogItem } from '../catalog/catalog.js'
import { contentTypes, type ContentType } from '../content/item-types.js'
import { allVariants } from '../content/text.js'
import type { RequestView } from './request-view.js'
import { pageSizes, paginate } from './pagination.js'
import { sectionSize } from './sections.js'
import type { Person } from '../people/people.js'
import { usedByTitles } from './item-details.js'
import { recordsOfPerson } from './leaderboards.js'
import { rankedReplay, recordsSearchValues } from './person-records.js'
import { worksOfPerson, worksSearchValues } from './person-works.js'

/** The order of a person's sections: what they made first, their plays last. */
const sectionOrder: ContentType[] = [
    'level',
    'playlist',
    'post',
    ...contentTypes.filter((type) => !['level', 'playlist', 'post'].includes(type)),
]

/** E8 for users: the most recently active people. */
export const userInfo = (view: RequestView): ServerItemInfo => {
    const newest = view.catalog.people.listed.slice(0, sectionSize)
    return {
        title: view.renderer.optionalText(view.catalog.settings.types.user.title),
        searches: [],
        sections: newest.length
            ? [
                  {
                      title: '#NEWEST',
                      icon: 'clock',
                      itemType: 'user',
                      items: newest.map((person) => view.renderer.user(person)),
                      searchValues: 'type=quick',
                  },
              ]
            : [],
    }
}

/** E9 for users: everyone, most recently active first; `keywords` finds names and handles. */
export const userList = (view: RequestView): ServerItemList<UserItem> => {
    const keywords = (view.query.get('keywords') ?? '').trim().toLowerCase()
    const { listed } = view.catalog.people
    const found = keywords ? listed.filter((person) => matches(person, keywords)) : listed
    const settings = view.catalog.settings.types.user
    const page = paginate(
        found,
        pageSizes.items,
        view.query,
        settings.paging,
        (person) => person.name,
    )
    return {
        title: view.renderer.optionalText(settings.title),
        pageCount: page.pageCount,
        cursor: page.cursor,
        items: page.items.map((person) => view.renderer.user(person)),
    }
}

const matches = (person: Person, keywords: string) =>
    [person.name, person.handle ?? '', ...allVariants(person.title)].some((text) =>
        text.toLowerCase().includes(keywords),
    )

/** E12 for users: a person, what they made, and their best records with the rank of each. */
export const userDetails = (view: RequestView, person: Person): ServerItemDetails<UserItem> => ({
    item: view.renderer.user(person),
    description: view.renderer.optionalText(person.description),
    actions: [],
    hasCommunity: false,
    leaderboards: [],
    sections: [...madeSections(view, person), ...recordSection(view, person)],
})

/** Their listed items of each type, newest first, a few each; "More" lists them all. */
const madeSections = (view: RequestView, person: Person): ServerItemSection[] =>
    sectionOrder.flatMap((type) => {
        const items = worksOfPerson(view, person, type)
        if (!items.length) return []
        return [
            {
                title: usedByTitles[type],
                icon: type,
                itemType: type,
                items: items
                    .slice(0, sectionSize)
                    .map((item) => view.renderer.item(item as CatalogItem & { type: typeof type })),
                searchValues:
                    view.searchable && items.length > sectionSize
                        ? worksSearchValues(person)
                        : undefined,
            } as ServerItemSection,
        ]
    })

/**
 * Their best records, best rank first, each replay tagged with its rank and board: a few, as
 * every section, since each replay carries its whole level; "More" lists them all.
 */
const recordSection = (view: RequestView, person: Person): ServerItemSection[] => {
    const records = recordsOfPerson(view, person)
    if (!records.length) return []
    return [
        {
            title: '#RANKING',
            icon: 'trophy',
            itemType: 'replay',
            items: records.slice(0, sectionSize).map((record) => rankedReplay(view, record)),
            searchValues:
                view.searchable && records.length > sectionSize
                    ? recordsSearchValues(person)
                    : undefined,
        },
    ]
}
