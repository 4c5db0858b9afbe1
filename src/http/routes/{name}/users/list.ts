import type { ServerItemList, UserItem } from '@sonolus/core'
import { userList } from '../../../../answers/users.js'
import type { ShelfHandler } from '../../../request-state.js'
import { respond } from '../../../respond.js'

/** E9 `GET /{name}/users/list`: everyone, most recently active first; `keywords` finds names and handles. */
export const getUserList: ShelfHandler = (ctx) =>
    respond<ServerItemList<UserItem>>(ctx, userList(ctx.state.shelf))
