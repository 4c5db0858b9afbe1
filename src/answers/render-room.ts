import type { RoomItem, ServerItemDetails } from '@sonolus/core'
import { displayName } from '../auth/sessions.js'
import type { ItemRenderer } from './render-item.js'
import type { OptionDeclaration } from '../content/server-settings.js'
import type { Room } from '../rooms/room-registry.js'

/** A setting as a player reads it: a select by its title, a toggle as on/off. */
const settingText = (option: OptionDeclaration, value: unknown, renderer: ItemRenderer): string => {
    const titleOf = (name: unknown) =>
        renderer.text(option.values?.find((entry) => entry.name === name)?.title ?? String(name))
    switch (option.type) {
        case 'toggle':
            return value ? 'on' : 'off'
        case 'select':
            return titleOf(value)
        case 'multi':
            return (value as string[]).map(titleOf).join(', ')
        case 'serverItem':
        case 'serverItems':
        case 'collectionItem':
            return JSON.stringify(value)
        default:
            return String(value)
    }
}

/** The first text setting a player filled in names the room; the others become its tags. */
const titleSetting = (room: Room) =>
    room.settings.find(({ option, value }) => option.type === 'text' && value !== '')

export const renderRoom = (room: Room, renderer: ItemRenderer): RoomItem => {
    const title = titleSetting(room)
    return {
        name: room.name,
        title: title ? String(title.value) : `${room.master.name}'s room`,
        subtitle: renderer.text(room.form.title),
        master: displayName(room.master),
        tags: room.settings
            .filter((setting) => setting !== title)
            .map(({ option, value }) => ({
                title: `${renderer.text(option.name)}: ${settingText(option, value, renderer)}`,
            })),
    }
}

export const renderRoomDetails = (
    room: Room,
    renderer: ItemRenderer,
): ServerItemDetails<RoomItem> => ({
    item: renderRoom(room, renderer),
    description: room.settings
        .map(
            ({ option, value }) =>
                `${renderer.text(option.name)}: ${settingText(option, value, renderer)}`,
        )
        .join('\n'),
    actions: [],
    hasCommunity: false,
    leaderboards: [],
    sections: [],
})
