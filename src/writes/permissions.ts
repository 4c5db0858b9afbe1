import type { SessionUser } from '../auth/sessions.js'

/** Who may edit or delete something a player made: that player, or an admin of server.yaml. */
export const mayModify = (
    user: SessionUser | undefined,
    authorId: string | undefined,
    admins: readonly string[],
) =>
    user !== undefined &&
    ((authorId !== undefined && authorId === user.id) || admins.includes(user.id))
