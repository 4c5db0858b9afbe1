import { notFoundPage } from '../../../web/problems-page.js'
import { personPage } from '../../../web/person-page.js'
import type { PageHandlers } from '../../page-handlers.js'

/** `GET /users/{userName}`: a person's page, with its link and QR code into the app. */
export const getPersonPage = (pages: PageHandlers) =>
    pages.page((request, ctx) => {
        const person = request.catalog.people.get(String(ctx.params.userName))
        if (person) return personPage(request, person)
        ctx.status = 404
        return notFoundPage(request, ctx.path)
    })
