import type Router from '@koa/router'
import type {
    RoomItem,
    ServerCreateRoomResponse,
    ServerItemDetails,
    ServerItemInfo,
    ServerItemList,
    ServerJoinRoomResponse,
} from '@sonolus/core'
import type { Auth } from '../../auth/auth.js'
import type { ProtocolHeaders } from '../../config.js'
import { renderRoom, renderRoomDetails } from '../../rooms/render-room.js'
import type { Room, RoomRegistry } from '../../rooms/room-registry.js'
import { roomSession } from '../../rooms/room-session.js'
import { roomCreateForms, roomSettingsFrom } from '../../rooms/room-settings.js'
import { renderForm } from '../forms.js'
import { notFound } from '../http-error.js'
import { parseJsonBytes, readJsonBytes } from '../json-body.js'
import { pageSizes, paginate } from '../pagination.js'
import type { RequestState, ShelfContext } from '../request-state.js'
import { respond } from '../respond.js'
import { sectionSize } from '../sections.js'
import { signedInUser } from '../session.js'

export type Multiplayer = { rooms: RoomRegistry; url: string }

/**
 * Rooms (E6, E7, and E8/E9/E12 for `rooms`). They live in the shared state, not in the catalog, so
 * their answers are marked `no-store`: the response cache and the app both ask again.
 */
export const roomRoutes = (
    router: Router,
    multiplayer: Multiplayer | undefined,
    auth: Auth,
    headers: ProtocolHeaders,
) => {
    const offered = () =>
        multiplayer ??
        notFound('multiplayer is not offered by this server (start it with --multiplayer-url)')

    router.get('/rooms/info', async (ctx) => {
        const state = (ctx as ShelfContext).state.shelf
        const settings = state.catalog.settings.types.room
        const rooms = (await multiplayer?.rooms.list()) ?? []
        ctx.set('Cache-Control', 'no-store')
        respond<ServerItemInfo>(ctx, {
            title: state.renderer.optionalText(settings.title),
            creates: multiplayer
                ? roomCreateForms(settings.creates).map((form) => renderForm(form, state.renderer))
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
                              .map((room) => renderRoom(room, state.renderer)),
                          searchValues: 'type=quick',
                      },
                  ]
                : [],
        })
    })

    router.get('/rooms/list', async (ctx) => {
        const state = (ctx as ShelfContext).state.shelf
        const rooms = matching((await multiplayer?.rooms.list()) ?? [], state)
        const page = paginate(rooms, pageSizes.items, state.query, 'page', (room) => room.name)
        ctx.set('Cache-Control', 'no-store')
        respond<ServerItemList<RoomItem>>(ctx, {
            title: state.renderer.optionalText(state.catalog.settings.types.room.title),
            pageCount: page.pageCount,
            items: page.items.map((room) => renderRoom(room, state.renderer)),
            searches: [],
        })
    })

    router.post('/rooms/create', async (ctx) => {
        const { rooms } = offered()
        await readJsonBytes(ctx)
        // With sign-in on, a room is reserved for the player who asked, and only they can open it.
        const creator = auth.signInEnabled ? signedInUser(ctx) : undefined
        respond<ServerCreateRoomResponse>(ctx, await rooms.reserve(creator))
    })

    router.get('/rooms/:roomName', async (ctx) => {
        const state = (ctx as ShelfContext).state.shelf
        const name = String(ctx.params.roomName)
        const room =
            (await multiplayer?.rooms.get(name)) ??
            notFound(`room "${name}" not found: it may have ended`)
        ctx.set('Cache-Control', 'no-store')
        respond<ServerItemDetails<RoomItem>>(ctx, renderRoomDetails(room, state.renderer))
    })

    router.post('/rooms/:roomName', async (ctx) => {
        const { rooms, url } = offered()
        const state = (ctx as ShelfContext).state.shelf
        const name = String(ctx.params.roomName)
        const raw = await readJsonBytes(ctx)
        const join = await auth.verifier.verify(
            raw,
            parseJsonBytes(raw),
            ctx.get(headers.signature) || undefined,
            { type: 'authenticateMultiplayer', room: name },
        )
        const { id, handle, name: userName } = join.body.userProfile
        const key = ctx.get(headers.roomKey)
        const room = key
            ? await rooms.open(name, key, { id, handle, name: userName }, () =>
                  roomSettingsFrom(
                      roomCreateForms(state.catalog.settings.types.room.creates),
                      state.query,
                  ),
              )
            : await rooms.join(name)
        respond<ServerJoinRoomResponse>(ctx, {
            url,
            type: 'round',
            session: roomSession(auth.signer, room, join, key !== ''),
        })
    })
}

/** Quick search over what a room shows: its title, its form and its master. */
const matching = (rooms: Room[], state: RequestState) => {
    const keywords = (state.query.get('keywords') ?? '').toLowerCase().split(/\s+/).filter(Boolean)
    if (!keywords.length) return rooms
    return rooms.filter((room) => {
        const shown = renderRoom(room, state.renderer)
        const text = [shown.title, shown.subtitle, shown.master].join('\n').toLowerCase()
        return keywords.every((keyword) => text.includes(keyword))
    })
}
