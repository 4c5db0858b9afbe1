/**
 * Everything a guest's app can reach from a server's home page, found the way the app finds it:
 * info → the buttons' types → their landing pages and every list page → every item shown (in
 * lists, sections and inside other items) → its details, community, comment pages, leaderboards,
 * record pages and records → every Srl of this server. Each URL is asked once, as the app asks
 * it (with `localization`).
 */
export type Fetched = { path: string; status: number; body: Buffer }

type Json = Record<string, unknown>

/** Item types that appear as a field of another item, and the list type they are served under. */
const nestedTypes: Record<string, string> = {
    engine: 'engines',
    skin: 'skins',
    background: 'backgrounds',
    effect: 'effects',
    particle: 'particles',
    level: 'levels',
    // A name of an item, comment or record opens its person.
    authorUser: 'users',
    playerUser: 'users',
}

export const crawlGuest = async (
    get: (path: string) => Promise<{ status: number; body: Buffer }>,
    name: string,
    locale: string,
) => {
    const asked = new Map<string, Fetched>()
    const srls = new Map<string, string>()
    const queue: string[] = []
    const visit = (path: string) => {
        if (!asked.has(path) && !queue.includes(path)) queue.push(path)
    }
    const withLocale = (path: string) =>
        `${path}${path.includes('?') ? '&' : '?'}localization=${locale}`

    const findItems = (value: unknown, type: string | undefined) => {
        if (Array.isArray(value)) return value.forEach((entry) => findItems(entry, type))
        if (!value || typeof value !== 'object') return
        const object = value as Json
        if (
            object.hash !== undefined &&
            typeof object.url === 'string' &&
            object.url.startsWith(`/${name}/repository/`)
        )
            srls.set(object.url, String(object.hash))
        if (type && typeof object.name === 'string' && typeof object.source === 'string')
            visit(`/${name}/${type}/${encodeURIComponent(object.name)}`)
        const sectionType = typeof object.itemType === 'string' ? `${object.itemType}s` : undefined
        // A section's "More".
        if (sectionType && typeof object.searchValues === 'string')
            visit(`/${name}/${sectionType}/list?${object.searchValues}`)
        for (const [key, field] of Object.entries(object)) {
            const fieldType =
                key === 'items'
                    ? (sectionType ?? type)
                    : key === 'item'
                      ? type
                      : key === 'levels'
                        ? 'levels'
                        : key === 'replays'
                          ? 'replays'
                          : nestedTypes[key]
            const useType = /^use([A-Z]\w*)$/.exec(key)?.[1]
            findItems(field, useType ? `${useType.toLowerCase()}s` : fieldType)
        }
    }

    const pages = (asked: string, body: Json) => {
        const path = asked.split('?')[0]!
        const pageCount = Number(body.pageCount)
        for (let page = 1; page < pageCount; page++) visit(`${path}?page=${page}`)
        if (pageCount >= 0) visit(`${path}?page=${pageCount}`)
        if (typeof body.cursor === 'string')
            visit(`${path}?cursor=${encodeURIComponent(body.cursor)}`)
    }

    visit(`/${name}/info`)
    visit(`/${name}/levels/result/info`)
    while (queue.length) {
        const path = queue.shift()!
        const answer = await get(withLocale(path))
        asked.set(path, { path: withLocale(path), ...answer })
        if (answer.status !== 200) continue
        const body = JSON.parse(answer.body.toString('utf8')) as Json
        const route = path
            .split('?')[0]!
            .slice(name.length + 2)
            .split('/')
        if (route.length === 1 && route[0] === 'info') {
            for (const button of body.buttons as { type: string }[]) {
                visit(`/${name}/${button.type}s/info`)
                visit(`/${name}/${button.type}s/list`)
            }
        }
        const type = route[0]
        if (route.at(-1) === 'list' && route.length === 2) pages(path, body)
        if (route.length === 2 && route[1] !== 'info' && route[1] !== 'list') {
            if (body.hasCommunity) {
                visit(`${path}/community/info`)
                visit(`${path}/community/comments/list`)
            }
            for (const leaderboard of body.leaderboards as { name: string }[]) {
                visit(`${path}/leaderboards/${leaderboard.name}`)
                visit(`${path}/leaderboards/${leaderboard.name}/records/list`)
            }
        }
        if (route.at(-1) === 'list' && route.at(-2) === 'comments') pages(path, body)
        if (route.at(-1) === 'list' && route.at(-2) === 'records') {
            pages(path, body)
            for (const record of body.records as { name: string }[])
                visit(`${path.split('?')[0]!.replace(/\/list$/, '')}/${record.name}`)
        }
        findItems(
            body,
            route[0] === 'info' || (route[0] === 'levels' && route[1] === 'result')
                ? undefined
                : type,
        )
    }
    return { answers: [...asked.values()], srls }
}
