import type { PageHandlers } from '../page-handlers.js'
import { homePage } from '../../web/home-page.js'

/** `GET /`: the home page for people. */
export const getHomePage = (pages: PageHandlers) => pages.page((request) => homePage(request))
