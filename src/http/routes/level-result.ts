import type Router from '@koa/router'
import type { ServerLevelResultInfo } from '@sonolus/core'
import { respond } from '../respond.js'

/** E3: result submission is not offered yet, which an empty list of submit forms says. */
export const levelResultRoutes = (router: Router) => {
    router.get('/levels/result/info', (ctx) => {
        respond<ServerLevelResultInfo>(ctx, { submits: [] })
    })
}
