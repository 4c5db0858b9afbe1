import type { SessionUser } from '../auth/sessions.js'
import { Refusal } from '../util/refusal.js'

/** Who may edit or delete something a player made: that player, or an admin of server.yaml. */
export const mayModify = (
    user: SessionUser | undefined,
    authorId: string | undefined,
    admins: readonly string[],
) =>
    user !== undefined &&
    ((authorId !== undefined && authorId === user.id) || admins.includes(user.id))

/** A player listed under `banned` in server.yaml writes nothing: refused with the owner's reason. */
export const refuseBanned = (user: SessionUser, banned: ReadonlyMap<string, string>) => {
    const reason = banned.get(user.id)
    if (reason !== undefined)
        throw new Refusal('forbidden', `you may not write on this server: ${reason}`)
}
