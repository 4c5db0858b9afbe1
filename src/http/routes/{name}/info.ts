import type { ServerInfo } from '@sonolus/core'
import { serverInfo, type Features } from '../../../answers/server-info.js'
import type { ShelfHandler } from '../../request-state.js'
import { respond } from '../../respond.js'

/** E1 `GET /{name}/info`: the server's home page. */
export const getServerInfo =
    (features: Features): ShelfHandler =>
    (ctx) =>
        respond<ServerInfo>(ctx, serverInfo(ctx.state.shelf, features))
