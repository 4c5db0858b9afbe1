import { defaultButtonOrder } from '../answers/server-info.js'
import { contentTypes, type ContentType } from '../content/item-types.js'
import { itemImage } from './item-cards.js'
import { renderMarkdown, summary } from './markdown.js'
import {
    absoluteLink,
    canonicalLink,
    layoutData,
    pageLink,
    resourceLink,
    type PageRequest,
} from './page-frame.js'
import { shareBlock } from './share-block.js'
import { renderTemplate } from './templates.js'
import { format, typeTitle } from './ui-text.js'

/** The types the home page offers, in the order of the app's buttons. */
const homeTypes = (request: PageRequest): ContentType[] => {
    const declared = request.catalog.settings.buttons
        ?.map((button) => button.type)
        .filter((type): type is ContentType => (contentTypes as readonly string[]).includes(type))
    return (declared ?? defaultButtonOrder).filter(
        (type) => request.catalog.listed[type].length > 0,
    )
}

export const homePage = async (request: PageRequest) => {
    const { catalog, view, t } = request
    const { settings } = catalog
    const title = view.renderer.text(settings.title)
    const description = view.renderer.optionalText(settings.description) ?? ''
    const banner = view.renderer.srl(settings.banner)
    const tiles = homeTypes(request).map((type) => {
        const listed = catalog.listed[type]
        return {
            href: pageLink(request, `/${type}s/list`),
            title:
                view.renderer.optionalText(settings.types[type].title) ??
                typeTitle(type, request.page.locale),
            count: format(t.items, listed.length),
            image: itemImage(catalog, request, listed.at(0)!),
        }
    })
    return renderTemplate('home', {
        ...layoutData(request, '/', {}),
        frame: {
            lang: request.page.locale,
            title,
            description: summary(description),
            canonical: canonicalLink(request, '/'),
            image: absoluteLink(request, resourceLink(request, banner)),
            ogType: 'website',
            noIndex: false,
        },
        title,
        description: renderMarkdown(description),
        banner: resourceLink(request, banner),
        tiles,
        share: await shareBlock(request, '/'),
    })
}
