import type { PageRoutes } from '../page-route.js'
import { homePage } from '../../web/home-page.js'

/** `GET /`: the home page for people. */
export const getHomePage = (pages: PageRoutes) => pages.page((request) => homePage(request))
