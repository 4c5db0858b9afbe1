import { problemsPage } from '../../../web/problems-page.js'
import { isOwnerRequest } from '../../owner-access.js'
import type { PageHandlers } from '../../page-handlers.js'

/** `GET /_shelf/problems.html`: the content's problems as a page, for the owner alone, while the folder is watched. */
export const getProblemsPage = (pages: PageHandlers, ownerToken: string | undefined) =>
    pages.page((request, ctx) => {
        // Kept for nobody: whether it shows the problems depends on who asks.
        ctx.set('Cache-Control', 'no-store')
        const allowed = isOwnerRequest(ctx.req, ownerToken)
        if (!allowed) ctx.status = 403
        return problemsPage(request, ctx.path, allowed)
    })
