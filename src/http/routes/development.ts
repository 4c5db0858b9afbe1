import Router from '@koa/router'
import type { Catalog } from '../../catalog/catalog.js'
import type { Problem } from '../../content/problems.js'
import { HttpError } from '../http-error.js'
import { isOwnerRequest, ownerOnlyMessage, type OwnerAccess } from '../owner-access.js'
import { respond } from '../respond.js'

/** Where tools find Shelf's own endpoints, outside every protocol name (which cannot start with `_`). */
export const developmentPrefix = '/_shelf'

/**
 * `GET /_shelf/problems`: the problems of the content being served, as JSON, for editor plugins
 * and scripts. It changes with every reload; with --git, git's own problems (a conflict, a
 * failed commit, pull or push) follow those of the files. Only the owner sees it
 * (isOwnerRequest): it names the folder's files.
 */
export const developmentRoutes = (
    getCatalog: () => Catalog,
    access: OwnerAccess,
    gitProblems: () => Problem[] = () => [],
) => {
    const router = new Router({ prefix: developmentPrefix })
    router.get('/problems', (ctx) => {
        if (!isOwnerRequest(ctx.req, access)) throw new HttpError(403, ownerOnlyMessage)
        ctx.set('Cache-Control', 'no-store')
        const problems = [...getCatalog().problems, ...gitProblems()]
        respond(ctx, {
            errors: problems.filter((problem) => problem.severity === 'error').length,
            warnings: problems.filter((problem) => problem.severity === 'warning').length,
            problems,
        })
    })
    return router.routes()
}
