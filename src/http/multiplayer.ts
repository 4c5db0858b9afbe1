import type { RoomRegistry } from '../rooms/room-registry.js'
import { notFound } from './http-error.js'

/** Rooms, offered only when a multiplayer server's URL is given. */
export type Multiplayer = { rooms: RoomRegistry; url: string }

/** The rooms of a server that offers them; elsewhere, a 404 that says how to offer them. */
export const offeredMultiplayer = (multiplayer: Multiplayer | undefined) =>
    multiplayer ??
    notFound('multiplayer is not offered by this server (start it with --multiplayer-url)')
