import type { ServerItemInfo } from '@sonolus/core'
import { userInfo } from '../../../../answers/users.js'
import type { ShelfHandler } from '../../../request-state.js'
import { respond } from '../../../respond.js'

/** E8 `GET /{name}/users/info`: the most recently active people. */
export const getUserInfo: ShelfHandler = (ctx) =>
    respond<ServerItemInfo>(ctx, userInfo(ctx.state.shelf))
