/**
 * E1 (server home), E8 (type landing pages) and E9 (plain lists) over real HTTP against
 * the example content. Expected names are derived from the content files, not from the server.
 */
import { version } from '@sonolus/core'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import {
    contentTypes,
    expectedForm,
    listedRecords,
    localize,
    newestFirst,
    protocolTypes,
    readRecords,
    readServerYaml,
    typeSettings,
    type ContentType,
} from './support/content-files.js'
import { collectItems, names } from './support/http.js'
import { levels, listClient, nameList, type ItemInfo } from './support/lists.js'
import { assertShape } from './support/response-shapes.js'
import { startTestServer, type TestServer } from './support/server.js'

const test = suite('read: home, landing pages and lists')
let server: TestServer
/** Deployments set their public address (protocol §1.1); the fallback to the request's origin is tested in errors-headers. */
const address = 'https://example.test/shelf'

test.before(async () => {
    // Generating the response schemas blocks for seconds: do it before any socket is open.
    assertShape('ServerMessage', {})
    server = await startTestServer({ address })
})

test.after(async () => {
    await server?.stop()
})

const { get, list, listNames } = listClient(() => server)
const allTypesWithItems = contentTypes.filter((type) =>
    readRecords(type).some((record) => !record.draft),
)

// ---------------------------------------------------------------- E1

test('E1: /info is a ServerInfo with sign-in, one button per type that has items, then configuration', async () => {
    const { status, headers, body } = await get<{
        buttons: { type: string }[]
        configuration: { options: unknown[] }
    }>('/info')
    assert.is(status, 200)
    assert.is(headers.get('service-version'), version.sonolus)
    assertShape('ServerInfo', body)
    const buttonTypes = body.buttons.map((button) => button.type)
    assert.is(buttonTypes[0], 'authentication', 'sign-in comes first, since it is on by default')
    assert.is(buttonTypes.at(-1), 'configuration', 'configuration comes last')
    assert.equal(
        [...buttonTypes.slice(1, -1)].sort(),
        [...allTypesWithItems].sort(),
        'one button per type with items',
    )
    assert.not.ok(
        buttonTypes.includes('room') || buttonTypes.includes('user'),
        'no buttons for types without items, nor rooms without multiplayer',
    )
    assert.is(new Set(buttonTypes).size, buttonTypes.length, 'no button twice')
})

test('E1: the configuration options are the declared ones, localized', async () => {
    const declared = readServerYaml().configuration!.options
    for (const locale of ['en', 'ja']) {
        const { body } = await get<{ configuration: { options: Record<string, unknown>[] } }>(
            `/info?localization=${locale}`,
        )
        const options = body.configuration.options
        assert.is(options.length, declared.length)
        const hideBelow = options.find((option) => option.query === 'hideBelow')!
        const source = declared.find((option) => option.query === 'hideBelow')!
        assert.is(hideBelow.name, localize(source.name, locale))
        assert.is(hideBelow.description, localize(source.description, locale))
        assert.is(hideBelow.type, 'slider')
        assert.is(hideBelow.def, source.def)
        assert.is(hideBelow.min, source.min)
        assert.is(hideBelow.max, source.max)
        assert.is(hideBelow.step, source.step)
        assert.is(hideBelow.required, false)
        for (const shelfOnly of ['filter', 'compare', 'types'])
            assert.not.ok(shelfOnly in hideBelow, `"${shelfOnly}" is not sent to the app`)
    }
})

test('E1: title and description follow localization; an unknown locale falls back to en', async () => {
    const settings = readServerYaml()
    const fallback = settings.fallbackLocale ?? 'en'
    const en = await get<{ title: string; description?: string }>('/info?localization=en')
    const ja = await get<{ title: string; description?: string }>('/info?localization=ja')
    const unknown = await get<{ title: string; description?: string }>(
        '/info?localization=xx-unknown',
    )
    const none = await get<{ title: string; description?: string }>('/info')
    assert.is(en.body.title, localize(settings.title, 'en'))
    assert.is(ja.body.title, localize(settings.title, 'ja'))
    assert.is.not(ja.body.title, en.body.title, 'the example has a Japanese title')
    assert.is(unknown.body.title, localize(settings.title, fallback))
    assert.is(none.body.title, localize(settings.title, fallback))
    assert.is(en.body.description, localize(settings.description, 'en'))
    assert.is(ja.body.description, localize(settings.description, 'ja'))
    assert.is(unknown.body.description, localize(settings.description, fallback))
})

test('E1: the banner is an Srl on this server', async () => {
    const { body } = await get<{ banner?: { hash?: string; url?: string } }>('/info')
    assert.ok(body.banner, 'banner present (content/banner.png exists)')
    assert.match(body.banner.hash ?? '', /^[0-9a-f]{40}$/)
    assert.is(body.banner.url, `/service/repository/${body.banner.hash}`)
})

// ---------------------------------------------------------------- E8

test('E8: /{type}/info is a ServerItemInfo for every type, rooms and users included', async () => {
    for (const type of protocolTypes) {
        const { status, body } = await get<ItemInfo>(`/${type}s/info`)
        assert.is(status, 200, `${type}s/info`)
        assertShape('ServerItemInfo', body)
        const settings = typeSettings(type)
        if (settings.title !== undefined)
            assert.is(body.title, localize(settings.title, 'en'), `${type}s title`)
        if (type === 'room') assert.equal(body.sections, [], 'rooms has no items, so no sections')
        // People are made from the content: their lists are tested in people.test.ts.
        if (type === 'user') assert.equal(body.sections[0]?.itemType, 'user', 'the newest people')
    }
})

test('E8: the level search form and its options are exactly as declared, localized', async () => {
    const declared = typeSettings('level').searches!
    for (const locale of ['en', 'ja']) {
        const { body } = await get<ItemInfo>(`/levels/info?localization=${locale}`)
        assert.equal(
            body.searches,
            declared.map((form) => expectedForm(form, locale)),
            `searches in ${locale}`,
        )
        const listBody = await list('level', { localization: locale })
        assert.equal(
            listBody.searches,
            body.searches,
            `the list offers the same searches in ${locale}`,
        )
    }
    const ja = await get<ItemInfo>('/levels/info?localization=ja')
    const featured = (
        ja.body.searches as { options: { query: string; name: string }[] }[]
    )[0]!.options.find((option) => option.query === 'featured')!
    assert.is(featured.name, 'おすすめのみ')
})

test('E8: the Newest section comes first and holds the newest listed items of its type', async () => {
    for (const type of contentTypes) {
        const listed = nameList(listedRecords(type))
        const { body } = await get<ItemInfo>(`/${type}s/info`)
        if (listed.length === 0) continue
        const newest = body.sections[0]
        assert.ok(newest, `${type}s/info has sections`)
        assert.is(newest.title, '#NEWEST', `${type}s: Newest first`)
        assert.is(newest.itemType, type)
        assert.ok(newest.items.length > 0 && newest.items.length <= listed.length)
        assert.equal(
            names(newest.items),
            listed.slice(0, newest.items.length),
            `${type}s: newest first`,
        )
    }
})

test('E8: the declared level sections follow Newest, localized, with their items', async () => {
    const declared = typeSettings('level').sections!
    const listed = levels()
    for (const locale of ['en', 'ja']) {
        const { body } = await get<ItemInfo>(`/levels/info?localization=${locale}`)
        const rest = body.sections.slice(1)
        assert.equal(
            rest.map((section) => section.title),
            declared.map((section) => localize(section.title, locale)),
            `declared sections in order (${locale})`,
        )
        for (const [index, section] of declared.entries()) {
            const got = rest[index]!
            assert.is(got.itemType, 'level')
            assert.is(got.icon, section.icon)
            if (section.search) {
                assert.is(got.searchValues, section.search)
                // This section is `type=advanced&sort=rating`: every listed level by rating, highest first.
                const byRating = [...listed].sort(
                    (a, b) =>
                        (b.fields.rating as number) - (a.fields.rating as number) ||
                        newestFirst(a, b),
                )
                assert.equal(
                    names(got.items),
                    nameList(byRating).slice(0, section.limit ?? 5),
                    `${localize(section.title, 'en')} items`,
                )
            } else {
                assert.equal(
                    names(got.items),
                    section.items,
                    `${localize(section.title, 'en')} items in the declared order`,
                )
            }
        }
    }
})

test('E8: unlisted and draft items are never in sections', async () => {
    for (const type of contentTypes) {
        const hidden = readRecords(type).filter((record) => record.draft || record.unlisted)
        if (!hidden.length) continue
        const { body } = await get<ItemInfo>(`/${type}s/info`)
        const shown = new Set(names(body.sections.flatMap((section) => section.items)))
        for (const record of hidden)
            assert.not.ok(
                shown.has(record.name),
                `${type} "${record.name}" is hidden, yet in a section`,
            )
    }
    // secret-garden has the highest rating: without the rule it would top "Hardest".
    const { body } = await get<ItemInfo>('/levels/info')
    assert.not.ok(JSON.stringify(body).includes('"name":"secret-garden"'))
    assert.not.ok(JSON.stringify(body).includes('"name":"rough-sketch"'))
})

// ---------------------------------------------------------------- E9: plain lists

test('E9: every type lists its listed items, newest first, in pages of 20', async () => {
    for (const type of protocolTypes.filter((type) => type !== 'user')) {
        const body = await list(type)
        const isContent = (contentTypes as readonly string[]).includes(type)
        const listed = isContent ? nameList(listedRecords(type as ContentType)) : []
        const paging = typeSettings(type).paging ?? 'page'
        assert.equal(names(body.items), listed.slice(0, 20), `${type}s/list items`)
        if (paging === 'cursor') {
            assert.ok(body.pageCount < 0, `${type}s use cursor paging`)
            if (listed.length <= 20)
                assert.is(body.cursor, undefined, `${type}s: no cursor on the last page`)
            else assert.type(body.cursor, 'string', `${type}s: a cursor to the next page`)
        } else {
            assert.is(body.pageCount, Math.ceil(listed.length / 20), `${type}s pageCount`)
            assert.is(body.cursor, undefined)
        }
    }
})

test('E9: every item in a list, nested ones included, carries source = the configured address', async () => {
    for (const type of contentTypes) {
        const items = collectItems(await list(type))
        assert.ok(items.length > 0, `${type}s has items`)
        for (const item of items)
            assert.is(item.source, address, `${type}s/list: ${item.name}.source`)
    }
})

test('E9: the level list is localized', async () => {
    const en = await list('level', { localization: 'en' })
    const ja = await list('level', { localization: 'ja' })
    for (const record of levels()) {
        assert.is(
            en.items.find((item) => item.name === record.name)!.title,
            localize(record.fields.title, 'en'),
        )
        assert.is(
            ja.items.find((item) => item.name === record.name)!.title,
            localize(record.fields.title, 'ja'),
        )
        assert.is(
            ja.items.find((item) => item.name === record.name)!.artists,
            localize(record.fields.artists, 'ja'),
        )
    }
})

test('E9: unlisted and draft items never appear in lists or searches', async () => {
    const queries: Record<string, string>[] = [
        {},
        { type: 'quick', keywords: 'garden' },
        { type: 'quick', keywords: 'sketch' },
        { type: 'advanced', genre: 'rock' },
        { type: 'advanced', sort: 'rating' },
    ]
    for (const query of queries) {
        const got = await listNames('level', query)
        assert.not.ok(got.includes('secret-garden'), `secret-garden in ${JSON.stringify(query)}`)
        assert.not.ok(got.includes('rough-sketch'), `rough-sketch in ${JSON.stringify(query)}`)
    }
})

test.run()
