/**
 * People: every author named in the content and every player who wrote something has a user
 * item, listed newest-active first, searchable by name and handle, with sections of what they
 * made and their best records; every item, comment and record links its person, in the shapes of
 * `@sonolus/core`; all their records a page at a time; and a person's web page renders a
 * player's name and handle as text.
 */
import type {
    ServerItemCommunityInfo,
    ServerItemDetails,
    ServerItemInfo,
    ServerItemList,
    ReplayItem,
    UserItem,
} from '@sonolus/core'
import type { Browser } from 'playwright-core'
import { readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { launchBrowser } from './support/browser.js'
import { signInPlayer, type Player } from './support/player.js'
import { levelDataHash, play, resultOf } from './support/plays.js'
import { assertShape } from './support/response-shapes.js'
import {
    copyContent,
    getJson,
    startTestServer,
    temporaryFolder,
    type TestServer,
} from './support/server.js'
import { eventually } from './support/eventually.js'
import { createTestSigner, type TestSigner } from './support/signing.js'
import { generousWriteLimits } from './support/write-limits.js'

const test = suite('people')
let content: string
let cache: string
let server: TestServer
let browser: Browser
let sneaky: Player
let alice: Player
let signer: TestSigner

const sneakyName = '<script>window.pwned = 1</script>Eve'
const sneakyHandle = '<script>window.pwned = 2</script>'

test.before(async () => {
    signer = await createTestSigner()
    content = await copyContent()
    cache = await temporaryFolder('shelf-people-state-')
    await generousWriteLimits(content)
    ;[browser, server] = await Promise.all([
        launchBrowser(),
        startTestServer({
            content,
            cache,
            watch: true,
            signIn: { signatureKey: signer.publicKeyFile },
        }),
    ])
    alice = await signInPlayer(server, signer, 'alice-player', 'Alice P')
    sneaky = await signInPlayer(server, signer, 'eve-id', sneakyName, sneakyHandle)
    const hash = await levelDataHash(server, 'first-steps')
    await play(alice, 'first-steps', hash, resultOf(990_000))
    await play(sneaky, 'first-steps', hash, resultOf(995_000))
    const comment = await sneaky.submit('/levels/night-drive/community/submit', {
        type: 'comment',
        content: 'nice',
    })
    assert.is(comment.status, 200, comment.body.message)
})

test.after(async () => {
    await Promise.all([browser.close(), server.stop()])
    await rm(content, { recursive: true, force: true })
    await rm(cache, { recursive: true, force: true })
})

const users = (query = '') => getJson<ServerItemList<UserItem>>(`${server.root}/users/list${query}`)

test('users/info and users/list: authors and players, newest active first', async () => {
    const info = await getJson<ServerItemInfo>(`${server.root}/users/info`)
    assertShape('ServerItemInfo', info.body)
    const list = await users()
    assert.is(list.status, 200)
    assertShape('UserList', list.body)
    const names = list.body.items.map((user) => user.name)
    assert.equal(
        names.slice(0, 2),
        ['eve-id', 'alice-player'],
        'the players who wrote last come first',
    )
    for (const author of ['alice', 'bob', 'carol'])
        assert.ok(names.includes(author), `${author} (an author of the content) is listed`)
    const eve = list.body.items[0]!
    assert.equal(
        { title: eve.title, handle: eve.handle },
        { title: `${sneakyName}#${sneakyHandle}`, handle: sneakyHandle },
    )
})

test('quick search by name and by handle', async () => {
    assert.equal(
        (await users('?keywords=alice%20p')).body.items.map((user) => user.name),
        ['alice-player'],
    )
    assert.equal(
        (await users(`?keywords=${encodeURIComponent(sneakyHandle)}`)).body.items.map(
            (user) => user.name,
        ),
        ['eve-id'],
    )
    assert.equal((await users('?keywords=nobody-at-all')).body.items, [])
})

test("a person's details: their file, what they made, and their best records", async () => {
    const details = await getJson<ServerItemDetails<UserItem>>(`${server.root}/users/alice`)
    assert.is(details.status, 200)
    assertShape('UserDetails', details.body)
    assert.is(details.body.item.title, 'Alice', 'the title of users/alice/item.yaml')
    assert.match(String(details.body.description), /gentle levels/)
    const levels = details.body.sections.find((section) => section.itemType === 'level')
    assert.ok(levels, 'a section of their levels')
    assert.ok(levels!.items.some((level) => level.name === 'first-steps'))

    const player = await getJson<ServerItemDetails<UserItem>>(`${server.root}/users/eve-id`)
    assertShape('UserDetails', player.body)
    const replays = player.body.sections.find((section) => section.itemType === 'replay')
    assert.ok(replays, 'a section of their plays')
    const records = player.body.sections.find((section) => section.title === '#RANKING')
    assert.ok(records, 'a section of their best records')
    assert.match(JSON.stringify(records!.items[0]!.tags), /#1/, 'with their rank')
    assert.is((await getJson(`${server.root}/users/nobody`)).status, 404)
})

test("a person's records section leads to all their records, a page at a time", async () => {
    // Three levels on the example's two boards: six records, one more than a section shows.
    for (const level of ['city-lights', 'morning-dew', 'thunder-road'])
        await play(alice, level, await levelDataHash(server, level), resultOf(900_000, 1))
    // A submit is answered once the play is on its boards.
    const details = await getJson<ServerItemDetails<UserItem>>(`${server.root}/users/alice-player`)
    assertShape('UserDetails', details.body)
    const section = details.body.sections.find((entry) => entry.title === '#RANKING')!
    assert.is(section.items.length, 5)
    assert.is(section.itemType, 'replay')
    const more = await getJson<ServerItemList<ReplayItem>>(
        `${server.root}/replays/list?${section.searchValues}`,
    )
    assert.is(more.status, 200)
    assertShape('ReplayList', more.body)
    assert.is(more.body.items.length, 8, 'first-steps on two boards and three levels on two')
    assert.equal(
        more.body.items.slice(0, 5).map((item) => item.name),
        section.items.map((item) => item.name),
        'the section shows the first of the list',
    )
    for (const item of more.body.items) {
        assert.match(item.tags[0]!.title ?? '', /^#\d+ · /, 'each tagged with its rank and board')
        assert.is(item.authorUser?.name, 'alice-player')
    }
    const unknown = await getJson(`${server.root}/replays/list?type=records&user=nobody`)
    assert.is(unknown.status, 404)
})

test('a section of what a person made leads to all of it, newest first', async () => {
    // With the plays before, seven replays of hers: two more than a section shows.
    for (const level of ['first-light', 'night-drive', 'secret-garden'])
        await play(alice, level, await levelDataHash(server, level), resultOf(800_000, 1))
    const details = await getJson<ServerItemDetails<UserItem>>(`${server.root}/users/alice-player`)
    const section = details.body.sections.find(
        (entry) => entry.itemType === 'replay' && entry.title !== '#RANKING',
    )!
    assert.is(section.items.length, 5)
    assert.ok(section.searchValues, 'a "More" to all of them')
    const more = await getJson<ServerItemList<ReplayItem>>(
        `${server.root}/replays/list?${section.searchValues}`,
    )
    assert.is(more.status, 200)
    assertShape('ReplayList', more.body)
    assert.ok(more.body.items.length >= 7, `every replay of hers (${more.body.items.length})`)
    assert.equal(
        more.body.items.slice(0, 5).map((item) => item.name),
        section.items.map((item) => item.name),
        'the section shows the newest of the list',
    )
    for (const item of more.body.items) assert.is(item.authorUser?.name, 'alice-player')

    // Fewer than a section holds: no "More".
    const bob = await getJson<ServerItemDetails<UserItem>>(`${server.root}/users/bob`)
    const levels = bob.body.sections.find((entry) => entry.itemType === 'level')!
    assert.is(levels.searchValues, undefined)
    const unknown = await getJson(`${server.root}/levels/list?type=works&user=nobody`)
    assert.is(unknown.status, 404)
    assert.match(JSON.stringify(unknown.body), /user \\"nobody\\" not found/)
})

test('every item, comment and record links its person, as @sonolus/core types them', async () => {
    const level = await getJson<ServerItemDetails<{ authorUser?: UserItem }>>(
        `${server.root}/levels/night-drive`,
    )
    assertShape('LevelDetails', level.body)
    assert.is(level.body.item.authorUser?.name, 'bob', 'authorUser: bob in its record')
    const community = await getJson<ServerItemCommunityInfo>(
        `${server.root}/levels/night-drive/community/info`,
    )
    assertShape('ServerItemCommunityInfo', community.body)
    const comment = community.body.topComments.find((entry) => entry.authorUser?.name === 'eve-id')
    assert.ok(comment, "a player's comment links the player")
    const replays = await getJson<ServerItemList<{ authorUser?: UserItem }>>(
        `${server.root}/replays/list`,
    )
    assertShape('ReplayList', replays.body)
    assert.ok(
        replays.body.items.every((replay) => replay.authorUser),
        'every replay has its person',
    )
    const records = await getJson<{ topRecords: { playerUser?: UserItem }[] }>(
        `${server.root}/levels/first-steps/leaderboards/arcade`,
    )
    assertShape('ServerItemLeaderboardDetails', records.body)
    assert.equal(
        records.body.topRecords.map((record) => record.playerUser?.name),
        ['eve-id', 'alice-player'],
    )
})

test("an owner's users/<name> file shows at once, and its problems are reported", async () => {
    await writeFile(
        join(content, 'users', 'alice', 'item.yaml'),
        'title: Alice the Author\nhandle: "0042"\n',
    )
    await eventually(
        'the edit of users/alice is served',
        async () =>
            (await getJson<ServerItemDetails<UserItem>>(`${server.root}/users/alice`)).body.item
                .handle === '0042',
    )
    await writeFile(join(content, 'users', 'alice', 'item.yaml'), 'titel: typo\n')
    await eventually('the problem is reported', async () =>
        JSON.stringify((await getJson(`${server.url}/_shelf/problems`)).body).includes(
            'users/alice/item.yaml',
        ),
    )
    assert.is(
        (await getJson(`${server.root}/users/alice`)).status,
        200,
        'the person is still there',
    )
})

test('a comment makes its writer a person; a comment beside it keeps them; removing it ends them', async () => {
    const listed = async () =>
        (await users('?keywords=quiet%20quinn')).body.items.map((user) => user.name)
    const quinn = await signInPlayer(server, signer, 'quinn-id', 'Quiet Quinn')
    const posted = await quinn.submit('/levels/night-drive/community/submit', {
        type: 'comment',
        content: 'my only words here',
    })
    assert.is(posted.status, 200, posted.body.message)
    await eventually('the commenter is a person', async () => (await listed()).includes('quinn-id'))
    // Another comment on the same level: Quinn's comment is in both versions of the level.
    const other = await alice.submit('/levels/night-drive/community/submit', {
        type: 'comment',
        content: 'and mine',
    })
    assert.is(other.status, 200, other.body.message)
    await eventually("alice's comment is served", async () =>
        JSON.stringify(
            (await getJson(`${server.root}/levels/night-drive/community/comments/list`)).body,
        ).includes('and mine'),
    )
    assert.equal(await listed(), ['quinn-id'], 'Quinn is still a person')
    const folder = join(content, 'levels', 'night-drive', 'comments')
    for (const file of await readdir(folder))
        if ((await readFile(join(folder, file), 'utf8')).includes('my only words here'))
            await rm(join(folder, file))
    await eventually(
        'a person with nothing left is no longer listed',
        async () => (await listed()).length === 0,
    )
})

test("a person's web page in a real browser: a player's name and handle are text, and it opens in the app", async () => {
    const page = await browser.newPage()
    try {
        const response = await page.goto(`${server.url}/users/eve-id`)
        assert.is(response?.status(), 200)
        const text = await page.textContent('body')
        assert.ok(text!.includes(sneakyName), 'the name as written')
        assert.ok(text!.includes(sneakyHandle), 'the handle as written')
        assert.is(
            await page.evaluate(() => (window as { pwned?: number }).pwned),
            undefined,
            'no script of theirs ran',
        )
        const open = await page.getAttribute('a[href^="https://open.sonolus.com/"]', 'href')
        assert.match(open!, /\/users\/eve-id$/)
    } finally {
        await page.close()
    }
})

test("a person's web page leads to all their records and plays, a page at a time", async () => {
    const page = await browser.newPage()
    try {
        await page.goto(`${server.url}/users/alice-player`)
        const links = await page.$$eval('p.more a', (anchors) =>
            anchors.map((anchor) => (anchor as HTMLAnchorElement).href),
        )
        const records = links.find((link) => link.includes('type=records'))
        assert.ok(records, `a link to all her records among ${JSON.stringify(links)}`)
        assert.ok(
            links.some((link) => link.includes('type=works')),
            'and to all her plays',
        )
        const response = await page.goto(records!)
        assert.is(response?.status(), 200)
        const cards = await page.$$eval('.cards > *', (cards) =>
            cards.map((card) => card.textContent ?? ''),
        )
        assert.ok(cards.length > 5, `every record (${cards.length}), more than her page shows`)
        for (const card of cards) assert.match(card, /#\d+ · /, 'each with its rank and board')
        assert.match((await page.textContent('h1')) ?? '', /alice/i)

        // A player's name in the list's title is text, as on their page.
        await page.goto(`${server.url}/replays/list?type=records&user=eve-id`)
        assert.ok(((await page.textContent('h1')) ?? '').includes(sneakyName))
        assert.is(await page.evaluate(() => (window as { pwned?: number }).pwned), undefined)

        const unknown = await page.goto(`${server.url}/replays/list?type=records&user=nobody`)
        assert.is(unknown?.status(), 404)
        assert.match((await page.textContent('body')) ?? '', /user "nobody" not found/)
    } finally {
        await page.close()
    }
})

test.run()
