import { itemPage } from '../../../web/item-page.js'
import type { PageHandlers } from '../../page-handlers.js'

/** `GET /{type}/{itemName}`: an item's page, with its link and QR code into the app. */
export const getItemPage = (pages: PageHandlers, writable: boolean) =>
    pages.withItem((request, item) => itemPage(request, item, writable))
