import { randomBytes } from 'node:crypto'
import type { SessionUser } from '../auth/sessions.js'
import type { MultiplayerOptions } from '../config.js'
import type { FormDeclaration, OptionDeclaration } from '../content/server-settings.js'
import { Refusal, refuse } from '../util/refusal.js'

/** A room its creator has joined: listed, with the settings of the create form it was made with. */
export type Room = {
    name: string
    form: FormDeclaration
    settings: { option: OptionDeclaration; value: unknown }[]
    /** The create form's values as the app sent them (`type=…&…`), for the multiplayer server. */
    values: string
    master: SessionUser
    createdAt: number
    expiresAt: number
}

/** A name and key handed out by E6 that the creator has yet to join with. */
type Reservation = { key: string; creatorId?: string; expiresAt: number }

export type RoomSettings = Pick<Room, 'form' | 'settings' | 'values'>

/** Reservations and rooms together; past this, E6 refuses until some expire. */
const maxRooms = 10_000

const nameAlphabet = 'abcdefghijkmnpqrstuvwxyz23456789'

/** Ten characters of an alphabet without look-alikes: short to read out, 50 bits to guess. */
const roomName = () =>
    [...randomBytes(10)].map((byte) => nameAlphabet[byte % nameAlphabet.length]).join('')

/**
 * The rooms of this server, in memory: they last minutes to hours, and a restart ends the games
 * anyway. Expired entries are dropped whenever the registry is asked anything.
 */
export class RoomRegistry {
    private readonly reservations = new Map<string, Reservation>()
    private readonly rooms = new Map<string, Room>()

    constructor(
        private readonly timing: Pick<MultiplayerOptions, 'reservationMs' | 'lifetimeMs'>,
    ) {}

    /** E6: a fresh name, and the key that proves its holder asked for it. */
    reserve(creator: SessionUser | undefined, now = Date.now()) {
        this.forgetExpired(now)
        if (this.reservations.size + this.rooms.size >= maxRooms)
            throw new Refusal(
                'too-many',
                'this server has as many rooms as it can hold; try again in a few minutes',
            )
        let name = roomName()
        while (this.reservations.has(name) || this.rooms.has(name)) name = roomName()
        const key = randomBytes(16).toString('base64url')
        this.reservations.set(name, {
            key,
            creatorId: creator?.id,
            expiresAt: now + this.timing.reservationMs,
        })
        return { name, key }
    }

    /**
     * E7 with a room key: the creator's join, which opens the room with its settings. The key
     * works once. The settings are read only once the key is found good.
     */
    open(
        name: string,
        key: string,
        master: SessionUser,
        settings: () => RoomSettings,
        now = Date.now(),
    ): Room {
        this.forgetExpired(now)
        const reservation = this.reservations.get(name)
        if (!reservation) {
            throw this.rooms.has(name)
                ? new Refusal(
                      'unauthorized',
                      `room "${name}" is already open and its key was used: join it without a room key`,
                  )
                : new Refusal(
                      'not-found',
                      `room "${name}" not found: it was never reserved, or its reservation expired (create it again)`,
                  )
        }
        if (reservation.key !== key)
            throw new Refusal('unauthorized', `the room key does not match room "${name}"`)
        if (reservation.creatorId !== undefined && reservation.creatorId !== master.id)
            throw new Refusal('unauthorized', `room "${name}" was reserved by another user`)
        const room: Room = {
            name,
            ...settings(),
            master,
            createdAt: now,
            expiresAt: now + this.timing.lifetimeMs,
        }
        this.reservations.delete(name)
        this.rooms.set(name, room)
        return room
    }

    /** E7 without a key: a player joining an open room, which keeps it listed for longer. */
    join(name: string, now = Date.now()): Room {
        const room =
            this.get(name, now) ??
            refuse('not-found', `room "${name}" not found: it may have ended`)
        room.expiresAt = now + this.timing.lifetimeMs
        return room
    }

    get(name: string, now = Date.now()): Room | undefined {
        this.forgetExpired(now)
        return this.rooms.get(name)
    }

    /** Open rooms, newest first. */
    list(now = Date.now()): Room[] {
        this.forgetExpired(now)
        return [...this.rooms.values()].reverse()
    }

    private forgetExpired(now: number) {
        for (const [name, reservation] of this.reservations)
            if (reservation.expiresAt <= now) this.reservations.delete(name)
        for (const [name, room] of this.rooms) if (room.expiresAt <= now) this.rooms.delete(name)
    }
}
