/**
 * Multiplayer rooms: E6 reserves a name and key for a signed-in player, E7 opens the room with
 * the creator's key and the create form's values, others join it, and the room shows in the
 * rooms list and details until it expires. The join's session is a token the multiplayer server
 * can verify with the shared secret.
 */
import type { RoomItem } from '@sonolus/core'
import { createHmac } from 'node:crypto'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { assertJsonError } from './support/http.js'
import { assertShape } from './support/response-shapes.js'
import {
    authenticateBody,
    createTestSigner,
    joinRoomBody,
    postSigned,
    signed,
    testProfile,
    type TestSigner,
} from './support/signing.js'
import { getJson, startTestServer, type TestServer } from './support/server.js'

const test = suite('multiplayer rooms')
const secret = 'the secret this server shares with its multiplayer server'
const multiplayerUrl = 'wss://play.shelf.test/rooms'
let signer: TestSigner
let server: TestServer

test.before(async () => {
    assertShape('ServerMessage', {})
    signer = await createTestSigner()
    server = await startTestServer({
        signIn: { signatureKey: signer.publicKeyFile, sessionSecret: secret },
        multiplayer: { url: multiplayerUrl },
    })
})

test.after(async () => {
    await server?.stop()
})

type Answer<T> = { status: number; headers: Headers; body: T & { message?: string } }

const answer = async <T>(response: Response): Promise<Answer<T>> => ({
    status: response.status,
    headers: response.headers,
    body: (await response.json()) as T & { message?: string },
})

const sessionOf = async (target: TestServer, id: string, name: string) => {
    const response = await answer<{ session: string }>(
        await postSigned(
            `${target.root}/authenticate`,
            await signed(signer, authenticateBody(target.url, testProfile(id, name))),
        ),
    )
    assert.is(response.status, 200, response.body.message)
    return response.body.session
}

const reserve = async (target: TestServer, session: string | undefined) =>
    answer<{ name: string; key: string }>(
        await fetch(`${target.root}/rooms/create`, {
            method: 'POST',
            headers: {
                'Content-Type': 'application/json',
                ...(session ? { 'Service-Session': session } : {}),
            },
            body: '{}',
        }),
    )

type Join = {
    room: string
    id?: string
    name?: string
    key?: string
    query?: string
    target?: TestServer
    signedRoom?: string
}

const join = async ({
    room,
    id = 'host-1',
    name = 'Host',
    key,
    query = '',
    target = server,
    signedRoom = room,
}: Join) => {
    const request = await signed(
        signer,
        joinRoomBody(target.url, signedRoom, testProfile(id, name)),
    )
    const response = await postSigned(
        `${target.root}/rooms/${room}${query}`,
        request,
        key === undefined ? {} : { 'Service-Room-Key': key },
    )
    return {
        request,
        response: await answer<{ url: string; type: string; session: string }>(response),
    }
}

/** What a multiplayer server does with the join's session: check its MAC with the shared secret, then read it. */
const verifyRoomSession = (token: string) => {
    const [version, payload, mac] = token.split('.')
    assert.is(version, 'v1')
    const expected = createHmac('sha256', secret)
        .update(`shelf/room/v1.${payload}`)
        .digest('base64url')
    assert.is(mac, expected, 'the room session is signed with the shared secret')
    return JSON.parse(Buffer.from(payload!, 'base64url').toString('utf8')) as {
        room: string
        creating: boolean
        values: string
        user: { id: string; name: string; handle: string }
        master: { id: string }
        roomUser: { authentication: string; signature: string }
        exp: number
    }
}

test('the rooms landing page offers the declared create form; the home page a rooms button', async () => {
    const info = await getJson<{ creates: { type: string; options: { query: string }[] }[] }>(
        `${server.root}/rooms/info?localization=en`,
    )
    assert.is(info.status, 200)
    assertShape('ServerItemInfo', info.body)
    assert.equal(
        info.body.creates.map((form) => form.type),
        ['round'],
    )
    assert.equal(
        info.body.creates[0]!.options.map((option) => option.query),
        ['title', 'mode', 'players', 'spectators'],
    )
    const home = await getJson<{ buttons: { type: string }[] }>(`${server.root}/info`)
    assert.ok(home.body.buttons.some((button) => button.type === 'room'))
})

test('E6 needs a session; with one it reserves a fresh name and key', async () => {
    assertJsonError(await reserve(server, undefined), 401, 'E6 as a guest')
    const session = await sessionOf(server, 'host-1', 'Host')
    const first = await reserve(server, session)
    const second = await reserve(server, session)
    assert.is(first.status, 200, first.body.message)
    assertShape('ServerCreateRoomResponse', first.body)
    assert.match(first.body.name, /^[a-z0-9]{6,}$/)
    assert.ok(first.body.key.length >= 20)
    assert.is.not(first.body.name, second.body.name)
    assert.is.not(first.body.key, second.body.key)
})

test('E7: the creator opens the room with the key and the form values; others join; it is listed with its settings', async () => {
    const session = await sessionOf(server, 'host-1', 'Host')
    const { name, key } = (await reserve(server, session)).body
    const query = `?localization=en&type=round&title=${encodeURIComponent('Friday night')}&mode=ranked&players=6`
    const created = await join({ room: name, key, query })
    assert.is(created.response.status, 200, created.response.body.message)
    assertShape('ServerJoinRoomResponse', created.response.body)
    assert.is(created.response.body.url, multiplayerUrl)
    assert.is(created.response.body.type, 'round')

    const token = verifyRoomSession(created.response.body.session)
    assert.is(token.room, name)
    assert.is(token.creating, true)
    assert.equal(Object.fromEntries(new URLSearchParams(token.values)), {
        type: 'round',
        title: 'Friday night',
        mode: 'ranked',
        players: '6',
    })
    assert.is(token.user.id, 'host-1')
    assert.is(
        Buffer.from(token.roomUser.authentication, 'base64').toString('utf8'),
        created.request.body.toString('utf8'),
        'the raw join body, for the multiplayer server to re-verify',
    )
    assert.is(token.roomUser.signature, created.request.signature)
    assert.ok(token.exp > Date.now())

    const guest = await join({ room: name, id: 'guest-1', name: 'Guest' })
    assert.is(guest.response.status, 200, guest.response.body.message)
    const guestToken = verifyRoomSession(guest.response.body.session)
    assert.is(guestToken.creating, false)
    assert.is(guestToken.user.id, 'guest-1')
    assert.is(guestToken.master.id, 'host-1')
    assert.is(guestToken.values, token.values, 'every join carries the room settings')

    const list = await getJson<{ items: RoomItem[] }>(`${server.root}/rooms/list?localization=en`)
    assert.is(list.status, 200)
    assertShape('RoomList', list.body)
    assert.match(list.headers.get('cache-control') ?? '', /no-store/)
    const listed = list.body.items.find((room) => room.name === name)
    assert.ok(listed, 'the room is listed')
    assert.is(listed!.title, 'Friday night')
    assert.is(listed!.master, 'Host#1000')
    assert.equal(
        listed!.tags.map((tag) => tag.title),
        ['Mode: Ranked', 'Players: 6', 'Spectators welcome: on'],
    )

    const details = await getJson<{ item: RoomItem; description: string }>(
        `${server.root}/rooms/${name}?localization=ja`,
    )
    assert.is(details.status, 200)
    assertShape('RoomDetails', details.body)
    assert.match(details.body.description, /モード: ランクマッチ/)
    assert.is(details.body.item.subtitle, '新しいルーム')

    const searched = await getJson<{ items: RoomItem[] }>(
        `${server.root}/rooms/list?type=quick&keywords=friday`,
    )
    assert.ok(searched.body.items.some((room) => room.name === name))
    const missed = await getJson<{ items: RoomItem[] }>(
        `${server.root}/rooms/list?type=quick&keywords=saturday`,
    )
    assert.not.ok(missed.body.items.some((room) => room.name === name))
})

test("E7 refusals: a wrong key, a used key, another user's key, the wrong room, an unknown room", async () => {
    const session = await sessionOf(server, 'host-2', 'Second Host')
    const { name, key } = (await reserve(server, session)).body
    const query = '?type=round'

    const wrongKey = await join({ room: name, id: 'host-2', key: `${key}x`, query })
    assertJsonError(wrongKey.response, 401, 'a wrong room key')
    assert.match(wrongKey.response.body.message!, /key does not match/)

    const otherUser = await join({ room: name, id: 'intruder', key, query })
    assertJsonError(otherUser.response, 401, 'the key used by another user')
    assert.match(otherUser.response.body.message!, /reserved by another user/)

    const wrongRoom = await join({
        room: name,
        id: 'host-2',
        key,
        query,
        signedRoom: 'another-room',
    })
    assertJsonError(wrongRoom.response, 401, 'a body signed for another room')
    assert.match(wrongRoom.response.body.message!, /room must be the room in the path/)

    const notYetOpen = await join({ room: name, id: 'guest-2' })
    assertJsonError(notYetOpen.response, 404, 'joining a room its creator has not opened')

    assert.is(
        (await join({ room: name, id: 'host-2', key, query })).response.status,
        200,
        'the creator, with the right key',
    )
    const reused = await join({ room: name, id: 'host-2', key, query })
    assertJsonError(reused.response, 401, 'the key a second time')
    assert.match(reused.response.body.message!, /already open/)

    assertJsonError(
        (await join({ room: 'nosuchroom', id: 'guest-2' })).response,
        404,
        'an unknown room',
    )
    assertJsonError(
        (await join({ room: 'nosuchroom', id: 'guest-2', key, query })).response,
        404,
        'an unknown room, with a key',
    )
    assertJsonError(
        await getJson(`${server.root}/rooms/nosuchroom`),
        404,
        'details of an unknown room',
    )
})

test('E7: the create form values must be valid, and a refused form leaves the key usable', async () => {
    const session = await sessionOf(server, 'host-3', 'Third Host')
    const { name, key } = (await reserve(server, session)).body
    for (const [query, message] of [
        ['', /type=<form>/],
        ['?type=marathon', /no room create form "marathon"/],
        ['?type=round&players=99', /option "players" expects a number from 2 to 8/],
        ['?type=round&mode=chaos', /option "mode" expects one of casual, ranked/],
    ] as const) {
        const response = (await join({ room: name, id: 'host-3', key, query })).response
        assertJsonError(response, 400, `create values ${query || '(none)'}`)
        assert.match(response.body.message!, message)
    }
    const opened = await join({
        room: name,
        id: 'host-3',
        name: 'Third Host',
        key,
        query: '?type=round',
    })
    assert.is(opened.response.status, 200, opened.response.body.message)
    const details = await getJson<{ item: RoomItem }>(`${server.root}/rooms/${name}`)
    assert.is(
        details.body.item.title,
        "Third Host's room",
        'defaults for what the app left out, and a name from the master',
    )
})

test('E7 checks the signature like sign-in: a stale or unsigned join is 401', async () => {
    const stale = await signed(
        signer,
        joinRoomBody(server.url, 'someroom', testProfile('guest-3'), Date.now() - 120_000),
    )
    assertJsonError(
        await answer(await postSigned(`${server.root}/rooms/someroom`, stale)),
        401,
        'a stale join',
    )
    const unsigned = await fetch(`${server.root}/rooms/someroom`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(joinRoomBody(server.url, 'someroom', testProfile('guest-3'))),
    })
    assertJsonError(await answer(unsigned), 401, 'an unsigned join')
})

test('reservations and rooms expire', async () => {
    const brief = await startTestServer({
        signIn: { signatureKey: signer.publicKeyFile },
        multiplayer: { url: multiplayerUrl, reservationMs: 300, lifetimeMs: 600 },
    })
    try {
        const session = await sessionOf(brief, 'host-4', 'Brief')
        const late = (await reserve(brief, session)).body
        const open = (await reserve(brief, session)).body
        assert.is(
            (
                await join({
                    target: brief,
                    room: open.name,
                    id: 'host-4',
                    key: open.key,
                    query: '?type=round',
                })
            ).response.status,
            200,
        )
        await new Promise((resolve) => setTimeout(resolve, 400))
        assertJsonError(
            (
                await join({
                    target: brief,
                    room: late.name,
                    id: 'host-4',
                    key: late.key,
                    query: '?type=round',
                })
            ).response,
            404,
            'a reservation past its time',
        )
        const listed = await getJson<{ items: RoomItem[] }>(`${brief.root}/rooms/list`)
        assert.ok(
            listed.body.items.some((room) => room.name === open.name),
            'the open room is still listed',
        )
        await new Promise((resolve) => setTimeout(resolve, 700))
        const later = await getJson<{ items: RoomItem[] }>(`${brief.root}/rooms/list`)
        assert.not.ok(
            later.body.items.some((room) => room.name === open.name),
            'the room is gone once it expires',
        )
        assertJsonError(
            await getJson(`${brief.root}/rooms/${open.name}`),
            404,
            'details of an expired room',
        )
    } finally {
        await brief.stop()
    }
})

test('without --multiplayer-url: no rooms button, no create forms, E6 and E7 are 404', async () => {
    const plain = await startTestServer({ signIn: { signatureKey: signer.publicKeyFile } })
    try {
        const home = await getJson<{ buttons: { type: string }[] }>(`${plain.root}/info`)
        assert.not.ok(home.body.buttons.some((button) => button.type === 'room'))
        const info = await getJson<{ creates?: unknown[] }>(`${plain.root}/rooms/info`)
        assert.equal(info.body.creates ?? [], [])
        const session = await sessionOf(plain, 'host-5', 'Plain')
        const reserved = await reserve(plain, session)
        assertJsonError(reserved, 404, 'E6 without multiplayer')
        assert.match(reserved.body.message!, /--multiplayer-url/)
        assertJsonError(
            (await join({ target: plain, room: 'someroom', id: 'host-5' })).response,
            404,
            'E7 without multiplayer',
        )
    } finally {
        await plain.stop()
    }
})

test.run()
