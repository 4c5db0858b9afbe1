import type { ServerItemDetails, UserItem } from '@sonolus/core'
import { userDetails } from '../../../../answers/users.js'
import { personParam } from '../../../path-params.js'
import type { ShelfHandler } from '../../../request-state.js'
import { respondKept } from '../../../kept-answers.js'

/** E12 `GET /{name}/users/{userName}`: a person, what they made, and their best records. */
export const getUserDetails: ShelfHandler = (ctx) => {
    const person = personParam(ctx)
    respondKept<ServerItemDetails<UserItem>>(ctx, [], () => userDetails(ctx.state.shelf, person))
}
