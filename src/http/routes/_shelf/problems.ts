import type { RouterMiddleware } from '@koa/router'
import type { Catalog } from '../../../catalog/catalog.js'
import type { Problem } from '../../../content/problems.js'
import { HttpError } from '../../http-error.js'
import { isOwnerRequest, ownerOnlyMessage } from '../../owner-access.js'
import { respond } from '../../respond.js'

/**
 * `GET /_shelf/problems`: the problems of the content being served, as JSON, for editor plugins
 * and scripts. It changes with every reload; with --git, git's own problems (a conflict, a
 * failed commit, pull or push) follow those of the files. Only the owner sees it
 * (isOwnerRequest): it names the folder's files.
 */
export const getProblems =
    (
        getCatalog: () => Catalog,
        ownerToken: string | undefined,
        gitProblems: () => Problem[] = () => [],
    ): RouterMiddleware =>
    (ctx) => {
        if (!isOwnerRequest(ctx.req, ownerToken)) throw new HttpError(403, ownerOnlyMessage)
        ctx.set('Cache-Control', 'no-store')
        const problems = [...getCatalog().problems, ...gitProblems()]
        respond(ctx, {
            errors: problems.filter((problem) => problem.severity === 'error').length,
            warnings: problems.filter((problem) => problem.severity === 'warning').length,
            problems,
        })
    }
