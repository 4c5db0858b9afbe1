import type { ReplayItem, ServerItemList } from '@sonolus/core'
import type { ProtocolType } from '../content/item-types.js'
import type { Person } from '../people/people.js'
import { recordsOfPerson, type PersonRecord } from './leaderboards.js'
import { pageSizes, paginate } from './pagination.js'
import { asksForWorks, namedPerson } from './person-works.js'
import type { RequestView } from './request-view.js'

/**
 * The replays list's search for a person's records (`type=records&user=NAME`): what "More" of
 * the records section of their page opens, every board they rank on, best rank first.
 */
const recordsSearch = 'records'

/** The search values of a person's records, for their section's "More". */
export const recordsSearchValues = (person: Person) =>
    new URLSearchParams({ type: recordsSearch, user: person.name }).toString()

/**
 * Which of a person's lists a list request asks for (with `user=NAME`): their records, of the
 * replays only, or their items of the type; none in a static export, which cannot tell search
 * values apart, and none for a search of the type.
 */
export const askedPersonList = (
    view: RequestView,
    type: ProtocolType,
): 'records' | 'works' | undefined => {
    if (!view.searchable) return undefined
    if (type === 'replay' && view.query.get('type') === recordsSearch) return 'records'
    return asksForWorks(view) ? 'works' : undefined
}

/** A record as a replay, tagged with its rank and board. */
export const rankedReplay = (view: RequestView, record: PersonRecord): ReplayItem => {
    const item = view.renderer.item(record.replay)
    return {
        ...item,
        tags: [
            { title: `#${record.rank} · ${view.renderer.text(record.board)}`, icon: 'ranking' },
            ...item.tags,
        ],
    }
}

/** E9 of replays with `type=records&user=NAME`: a page of the person's records. */
export const personRecordList = (view: RequestView) => {
    const page = paginate(
        recordsOfPerson(view, namedPerson(view)),
        pageSizes.items,
        view.query,
        view.catalog.settings.types.replay.paging,
        (record) => record.replay.name,
    )
    const rest: Omit<ServerItemList<ReplayItem>, 'items'> = {
        title: '#RANKING',
        pageCount: page.pageCount,
        cursor: page.cursor,
        searches: [],
    }
    return {
        rest,
        itemsJson: page.items.map((record) => [
            Buffer.from(JSON.stringify(rankedReplay(view, record))),
        ]),
    }
}
