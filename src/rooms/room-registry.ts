import { randomBytes } from 'node:crypto'
import type { SessionUser } from '../auth/sessions.js'
import type { MultiplayerOptions } from '../config.js'
import type { FormDeclaration, OptionDeclaration } from '../content/server-settings.js'
import type { SharedState } from '../shared-state/shared-state.js'
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

/** Room names held (reserved or open), scored by expiry: what counts against `maxRooms`. */
const heldIndex = 'rooms:held'
/** Open rooms, scored by when they opened: the list, newest first. */
const openIndex = 'rooms:open'
const reservationEntry = (name: string) => `room-reservation:${name}`
const roomEntry = (name: string) => `room:${name}`

/**
 * The rooms of this server, in the shared state, so a room reserved on one replica is joined and
 * listed on every other: they last minutes to hours, and expire by themselves.
 */
export class RoomRegistry {
    constructor(
        private readonly state: SharedState,
        private readonly timing: Pick<MultiplayerOptions, 'reservationMs' | 'lifetimeMs'>,
    ) {}

    /** E6: a fresh name, and the key that proves its holder asked for it. */
    async reserve(creator: SessionUser | undefined, now = Date.now()) {
        await this.state.indexRemoveUpTo(heldIndex, now)
        if ((await this.state.indexSize(heldIndex)) >= maxRooms)
            throw new Refusal(
                'too-many',
                'this server has as many rooms as it can hold; try again in a few minutes',
            )
        const key = randomBytes(16).toString('base64url')
        const reservation: Reservation = {
            key,
            creatorId: creator?.id,
            expiresAt: now + this.timing.reservationMs,
        }
        for (;;) {
            const name = roomName()
            if (
                !(await this.state.get(roomEntry(name))) &&
                (await this.state.set(
                    reservationEntry(name),
                    JSON.stringify(reservation),
                    this.timing.reservationMs,
                    { ifAbsent: true },
                ))
            ) {
                await this.hold(name, reservation.expiresAt)
                return { name, key }
            }
        }
    }

    /**
     * E7 with a room key: the creator's join, which opens the room with its settings. The key
     * works once. The settings are read only once the key is found good.
     */
    async open(
        name: string,
        key: string,
        master: SessionUser,
        settings: () => RoomSettings,
        now = Date.now(),
    ): Promise<Room> {
        const found = await this.state.get(reservationEntry(name))
        const reservation = found && (JSON.parse(found) as Reservation)
        if (!reservation) throw await this.notReserved(name)
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
        // The creator joining twice at once, on two replicas: one of them opens the room.
        if ((await this.state.take(reservationEntry(name))) === undefined)
            throw await this.notReserved(name)
        await this.keep(room, now)
        return room
    }

    /** E7 without a key: a player joining an open room, which keeps it listed for longer. */
    async join(name: string, now = Date.now()): Promise<Room> {
        const room =
            (await this.get(name)) ??
            refuse('not-found', `room "${name}" not found: it may have ended`)
        room.expiresAt = now + this.timing.lifetimeMs
        await this.keep(room, now)
        return room
    }

    async get(name: string): Promise<Room | undefined> {
        const found = await this.state.get(roomEntry(name))
        return found ? (JSON.parse(found) as Room) : undefined
    }

    /** Open rooms, newest first. */
    async list(): Promise<Room[]> {
        const names = (await this.state.indexRange(openIndex, 'descending')).map(
            ({ member }) => member,
        )
        const found = await this.state.getMany(names.map(roomEntry))
        const ended = names.filter((_, index) => found[index] === undefined)
        if (ended.length) await this.state.indexRemove(openIndex, ended)
        return found.filter((room) => room !== undefined).map((room) => JSON.parse(room) as Room)
    }

    private async notReserved(name: string) {
        return (await this.state.get(roomEntry(name)))
            ? new Refusal(
                  'unauthorized',
                  `room "${name}" is already open and its key was used: join it without a room key`,
              )
            : new Refusal(
                  'not-found',
                  `room "${name}" not found: it was never reserved, or its reservation expired (create it again)`,
              )
    }

    /** Saves an open room; every index outlives the rooms in it, each being kept at most a lifetime. */
    private async keep(room: Room, now: number) {
        await this.state.set(roomEntry(room.name), JSON.stringify(room), room.expiresAt - now)
        await this.state.indexAdd(openIndex, room.name, room.createdAt, this.timing.lifetimeMs)
        await this.hold(room.name, room.expiresAt)
    }

    private async hold(name: string, expiresAt: number) {
        const { reservationMs, lifetimeMs } = this.timing
        await this.state.indexAdd(heldIndex, name, expiresAt, Math.max(reservationMs, lifetimeMs))
    }
}
