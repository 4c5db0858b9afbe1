import type { Catalog } from '../catalog/catalog.js'
import { contentTypeInfos, contentTypes } from '../content/item-types.js'
import { assetsPrefix } from '../web/assets.js'
import { pageFile } from './answer-files.js'
import type { LoopbackClient } from './loopback-client.js'
import type { OutputFolder } from './output-folder.js'

/** Pages asked at once: as for the answers, enough to keep the one server process busy. */
const concurrency = 8

/** The links and sources of a page's HTML (attribute values, with the `&amp;` the templates escape). */
const linkPattern = /\s(?:href|src)="([^"]*)"/g

/**
 * Asks the server every web page a visitor can reach by following links from the home page and
 * from every item's and person's page (unlisted items too, which nothing links to but their
 * shared address): the type lists and each of their pages, items, comments and leaderboards,
 * the stylesheet and icon; and files each one. Only links below the pages' base path count; the protocol's paths
 * and other sites are left to the answers' export and to themselves.
 */
export class PageExport {
    constructor(
        private readonly client: LoopbackClient,
        private readonly output: OutputFolder,
        /** The folder of the output the site's root is. */
        private readonly site: string,
        private readonly name: string,
        /** The path of the pages below the host (--address's path), which their links start with. */
        private readonly basePath: string,
    ) {}

    async run(catalog: Catalog) {
        const items = contentTypes.flatMap((type) =>
            [...catalog.items[type].values()].map(
                (item) => `/${contentTypeInfos[type].plural}/${encodeURIComponent(item.name)}`,
            ),
        )
        const people = catalog.people.listed.map(
            (person) => `/users/${encodeURIComponent(person.name)}`,
        )
        const seen = new Set<string>(['/', ...items, ...people])
        let wave = [...seen]
        while (wave.length > 0) {
            const found: string[] = []
            for (let start = 0; start < wave.length; start += concurrency) {
                const links = await Promise.all(
                    wave.slice(start, start + concurrency).map((request) => this.page(request)),
                )
                for (const link of links.flat()) {
                    if (seen.has(link)) continue
                    seen.add(link)
                    found.push(link)
                }
            }
            wave = found
        }
    }

    /** Files one page or asset; answers the pages it links to, as requests below the root. */
    private async page(request: string) {
        const { status, body } = await this.client.fetch(request, 'text/html')
        if (status !== 200)
            throw new Error(
                `GET ${request} (a web page) answered ${status}: ${body.toString('utf8').slice(0, 300)}`,
            )
        const url = new URL(request, 'http://export')
        const path = decodeURIComponent(url.pathname)
        if (path.startsWith(`${assetsPrefix}/`)) {
            await this.output.put(`${this.site}${path}`, body)
            return []
        }
        await this.output.put(`${this.site}/${pageFile(path, url.searchParams)}`, body)
        return [...body.toString('utf8').matchAll(linkPattern)].flatMap(([, value]) =>
            this.ownLink(value!.replaceAll('&amp;', '&')),
        )
    }

    /** A link to another page or asset of this site, as a request below the root; none for anything else. */
    private ownLink(link: string): string[] {
        if (!link.startsWith(`${this.basePath}/`)) return []
        const request = link.slice(this.basePath.length)
        if (request.startsWith('//') || request.startsWith(`/${this.name}/`)) return []
        return [request]
    }
}
