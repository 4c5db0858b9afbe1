import type { RoomItem, ServerItemInfo, ServerItemList } from '@sonolus/core'
import type { Room } from '../rooms/room-registry.js'
import { roomCreateForms } from '../rooms/room-settings.js'
import { renderForm } from './forms.js'
import { pageSizes, paginate } from './pagination.js'
import { renderRoom } from './render-room.js'
import type { RequestView } from './request-view.js'
import { sectionSize } from './sections.js'

/** E8 for `rooms`: the rooms open now, and the forms that make one when multiplayer is offered. */
export const roomsInfo = (view: RequestView, rooms: Room[], offered: boolean): ServerItemInfo => {
    const settings = view.catalog.settings.types.room
    return {
        title: view.renderer.optionalText(settings.title),
        creates: offered
            ? roomCreateForms(settings.creates).map((form) => renderForm(form, view.renderer))
            : [],
        searches: [],
        sections: rooms.length
            ? [
                  {
                      title: '#NEWEST',
                      icon: 'clock',
                      itemType: 'room',
                      items: rooms
                          .slice(0, sectionSize)
                          .map((room) => renderRoom(room, view.renderer)),
                      searchValues: 'type=quick',
                  },
              ]
            : [],
    }
}

/** E9 for `rooms`: a page of the rooms a quick search finds. */
export const roomList = (view: RequestView, rooms: Room[]): ServerItemList<RoomItem> => {
    const page = paginate(
        matching(rooms, view),
        pageSizes.items,
        view.query,
        'page',
        (room) => room.name,
    )
    return {
        title: view.renderer.optionalText(view.catalog.settings.types.room.title),
        pageCount: page.pageCount,
        items: page.items.map((room) => renderRoom(room, view.renderer)),
        searches: [],
    }
}

/** Quick search over what a room shows: its title, its form and its master. */
const matching = (rooms: Room[], view: RequestView) => {
    const keywords = (view.query.get('keywords') ?? '').toLowerCase().split(/\s+/).filter(Boolean)
    if (!keywords.length) return rooms
    return rooms.filter((room) => {
        const shown = renderRoom(room, view.renderer)
        const text = [shown.title, shown.subtitle, shown.master].join('\n').toLowerCase()
        return keywords.every((keyword) => text.includes(keyword))
    })
}
