import type { RouterMiddleware } from '@koa/router'
import getRawBody from 'raw-body'
import type { ContentGit } from '../../../../git/content-git.js'
import { webhookRefusal } from '../../../../git/webhook-signature.js'
import { HttpError } from '../../../http-error.js'
import { respond } from '../../../respond.js'

/** GitHub sends push events of up to 25 MB; the whole body is signed, so the whole body is read. */
const webhookBodyLimit = '25mb'

/**
 * `POST /_shelf/git/webhook`: a git host says the remote changed, so the folder is pulled now.
 * Only a body signed with the shared secret is taken; anything else is 401 and logged. The answer
 * waits for the pull, so a host's delivery log shows what it did.
 */
export const postGitWebhook =
    (git: ContentGit): RouterMiddleware =>
    async (ctx) => {
        const { pull, webhookSecret } = git
        if (!pull || !webhookSecret)
            throw new HttpError(
                404,
                'the git webhook is off: start shelf with --git-pull and --git-webhook-secret',
            )
        const body = await getRawBody(ctx.req, { limit: webhookBodyLimit }).catch(
            (error: { status?: number; message: string }) => {
                throw new HttpError(
                    error.status === 413 ? 413 : 400,
                    `the webhook body could not be read: ${error.message}`,
                )
            },
        )
        const refusal = webhookRefusal(webhookSecret, body, ctx.headers)
        if (refusal) {
            console.warn(`shelf: git webhook refused from ${ctx.ip}: ${refusal}`)
            throw new HttpError(401, `webhook refused: ${refusal}`)
        }
        const outcome = await pull().catch((error: Error) => {
            throw new HttpError(502, `the pull failed: ${error.message}`)
        })
        respond(ctx, {
            message: outcome.to
                ? `pulled: ${outcome.changed.length} file(s) changed`
                : 'already up to date',
            ...outcome,
        })
    }
