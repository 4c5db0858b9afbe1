import type { CatalogItem } from '../catalog/catalog.js'
import { contentTypeInfos, type ContentType } from '../content/item-types.js'
import type { Person } from '../people/people.js'
import { userDetails } from '../answers/users.js'
import { sectionTitle } from './item-page.js'
import { cardTags, itemCard } from './item-cards.js'
import { renderMarkdown, summary } from './markdown.js'
import { canonicalLink, layoutData, pageLink, type PageRequest } from './page-frame.js'
import { shareBlock } from './share-block.js'
import { renderTemplate } from './templates.js'
import { readableText } from './ui-text.js'

/**
 * A person's page: what the app's page of them shows (their name and handle, the owner's words,
 * what they made, their best records with their rank), and the link that opens it in the app.
 */
export const personPage = async (request: PageRequest, person: Person) => {
    const details = userDetails(request.view, person)
    const path = `/users/${encodeURIComponent(person.name)}`
    const description = details.description ?? ''
    return renderTemplate('person', {
        ...layoutData(request, path, {}),
        frame: {
            lang: request.page.locale,
            title: details.item.title,
            description: summary(description || details.item.title),
            canonical: canonicalLink(request, path),
            ogType: 'website',
            noIndex: false,
        },
        person: {
            title: request.view.renderer.text(person.title),
            handle: person.handle,
            tags: details.item.tags.map((tag) => (tag.title ? readableText(tag.title) : '')),
        },
        description: description ? renderMarkdown(description) : '',
        sections: details.sections.map((section) => ({
            title: sectionTitle(request, section.title),
            // A record's replay shows its rank among its tags.
            items: section.items.map((shown) => ({
                ...itemCard(
                    request,
                    request.catalog.get(section.itemType as ContentType, shown.name) as CatalogItem,
                ),
                tags: cardTags(shown.tags),
            })),
            // The app's "More": the list of them all, a page at a time.
            more:
                section.searchValues &&
                pageLink(
                    request,
                    `/${contentTypeInfos[section.itemType as ContentType].plural}/list`,
                    Object.fromEntries(new URLSearchParams(section.searchValues)),
                ),
        })),
        share: await shareBlock(request, path),
    })
}
