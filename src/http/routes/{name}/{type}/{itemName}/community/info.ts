import type { ServerItemCommunityInfo } from '@sonolus/core'
import { communityInfo } from '../../../../../../answers/community.js'
import { itemParam } from '../../../../../path-params.js'
import type { ShelfHandler } from '../../../../../request-state.js'
import { respond } from '../../../../../respond.js'

/** E15 `GET /{name}/{type}/{itemName}/community/info`: an item's newest comments, and what the player may do there. */
export const getCommunityInfo =
    (writable: boolean): ShelfHandler =>
    (ctx) =>
        respond<ServerItemCommunityInfo>(
            ctx,
            communityInfo(ctx.state.shelf, itemParam(ctx), writable),
        )
