import type { Catalog } from '../catalog/catalog.js'
import { contentTypeInfos, contentTypes, typeFromPlural } from '../content/item-types.js'
import { forEachLimit } from '../util/for-each-limit.js'
import { answerFile, cursorPattern, resourceFile, type PageKey } from './answer-files.js'
import type { LoopbackClient } from './loopback-client.js'
import type { OutputFolder } from './output-folder.js'

/** Requests in flight at once: enough to keep the one server process busy while files are written. */
const concurrency = 8

/** A button's type that the app opens as a list of items (not `configuration`, say). */
const isProtocolType = (type: string) => typeFromPlural(`${type}s`) !== undefined

type ListPage = { pageCount: number; cursor?: string }
type Details = { hasCommunity: boolean; leaderboards: { name: string }[] }
type RecordList = ListPage & { records: { name: string }[] }

/**
 * Asks the server every GET a guest's app can make and files each answer: the home page, the
 * result screen, each type's landing page and every page of its list, then every item (unlisted
 * ones too) with its community and leaderboards, and every person. The items come from the catalog one at a time,
 * and an answer is written as soon as it arrives, so memory holds a few answers, not all of them;
 * what lies below an answer (page counts, leaderboards, records) is read from the answer itself.
 */
export class AnswerExport {
    /** Every resource an answer points at, by hash. */
    readonly hashes = new Set<string>()
    private readonly srls: RegExp

    constructor(
        private readonly client: LoopbackClient,
        private readonly output: OutputFolder,
        /** The folder of the output the site's root is. */
        private readonly site: string,
        private readonly name: string,
        private readonly locale: string,
    ) {
        this.srls = new RegExp(`"url":"/${name}/repository/([0-9a-f]{40})"`, 'g')
    }

    async run(catalog: Catalog) {
        await forEachLimit(this.tasks(catalog), concurrency, async (task) => void (await task()))
    }

    /** Copies every resource the answers point at, from where the server reads it. */
    async copyResources(catalog: Catalog) {
        await forEachLimit(this.hashes, concurrency, async (hash) => {
            const file = catalog.resources.get(hash)
            if (!file)
                throw new Error(
                    `an answer points at resource ${hash}, which the server does not have`,
                )
            const target = `${this.site}/${resourceFile(this.name, hash)}`
            await this.output.putNamedByContent(target, file.path, file.slice)
        })
    }

    private *tasks(catalog: Catalog): Generator<() => Promise<unknown>> {
        yield () => this.home()
        yield () => this.answer('/levels/result/info')
        for (const type of contentTypes) {
            const plural = contentTypeInfos[type].plural
            yield () => this.answer(`/${plural}/info`)
            yield () => this.list(`/${plural}/list`)
        }
        for (const type of contentTypes) {
            const plural = contentTypeInfos[type].plural
            for (const item of catalog.items[type].values())
                yield () => this.item(`/${plural}/${item.name}`)
        }
        // Every name of an item, comment or record opens its person in the app.
        for (const person of catalog.people.listed) yield () => this.answer(`/users/${person.name}`)
    }

    /** The home page, and the landing page and list of any button's type that holds no content (`user`), as the app follows them. */
    private async home() {
        const { buttons } = JSON.parse(await this.answer('/info')) as {
            buttons: { type: string }[]
        }
        const contentButtons = new Set<string>(contentTypes)
        for (const { type } of buttons) {
            if (contentButtons.has(type) || !isProtocolType(type)) continue
            await this.answer(`/${type}s/info`)
            await this.list(`/${type}s/list`)
        }
    }

    private async item(path: string) {
        const details = JSON.parse(await this.answer(path)) as Details
        if (details.hasCommunity) {
            await this.answer(`${path}/community/info`)
            await this.list(`${path}/community/comments/list`)
        }
        for (const { name } of details.leaderboards) {
            const leaderboard = `${path}/leaderboards/${name}`
            await this.answer(leaderboard)
            const records = new Set<string>()
            await this.list(`${leaderboard}/records/list`, (page) =>
                (page as RecordList).records.forEach((record) => records.add(record.name)),
            )
            for (const record of records) await this.answer(`${leaderboard}/records/${record}`)
        }
    }

    /** Every page of a list (page mode, with the empty page past the end; or cursor mode, cursor by cursor). */
    private async list(path: string, onPage: (page: ListPage) => void = () => {}) {
        const first = JSON.parse(await this.answer(path, { page: 0 })) as ListPage
        onPage(first)
        if (first.pageCount >= 0) {
            for (let page = 1; page < first.pageCount; page++)
                onPage(JSON.parse(await this.answer(path, { page })) as ListPage)
            await this.answer(path, { beyond: first.pageCount })
            return
        }
        for (let cursor = first.cursor; cursor !== undefined;) {
            if (!cursorPattern.test(cursor))
                throw new Error(
                    `${path} handed out a cursor that cannot name a file: ${cursor.slice(0, 60)}`,
                )
            const page = JSON.parse(await this.answer(path, { cursor })) as ListPage
            onPage(page)
            cursor = page.cursor
        }
    }

    /** Asks for one answer as the app would and files it; the answer must be a 200. */
    private async answer(path: string, key?: PageKey) {
        const query = new URLSearchParams({ localization: this.locale })
        if (key && 'page' in key && key.page > 0) query.set('page', String(key.page))
        if (key && 'beyond' in key) query.set('page', String(key.beyond))
        if (key && 'cursor' in key) query.set('cursor', key.cursor)
        const fullPath = `/${this.name}${path}`
        const request = `${fullPath.split('/').map(encodeURIComponent).join('/')}?${query}`
        const { status, body } = await this.client.fetch(request)
        if (status !== 200)
            throw new Error(
                `GET ${request} answered ${status}: ${body.toString('utf8').slice(0, 300)}`,
            )
        await this.output.put(`${this.site}/${answerFile(fullPath, key)}`, body)
        const text = body.toString('utf8')
        for (const match of text.matchAll(this.srls)) this.hashes.add(match[1]!)
        return text
    }
}
