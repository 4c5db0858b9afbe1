import { hostname } from 'node:os'
import type { SessionUser } from '../auth/sessions.js'
import { displayName } from '../auth/sessions.js'

/**
 * Players' e-mails live under a domain nobody can own (`.invalid` is reserved by RFC 2606), so
 * they are never mistaken for real addresses, and `git log --author=<id>@players.shelf.invalid`
 * finds everything one player did.
 */
export const playerEmailDomain = 'players.shelf.invalid'

/** git cuts a name or e-mail at `<`, `>` or a line break; a profile's name may hold any of them. */
const gitSafe = (text: string) => text.replace(/[<>\r\n\0]+/g, ' ').trim() || '?'

/** The id as an e-mail's local part: what the app gives (hex) stays as it is, anything else is %-escaped. */
const localPart = (id: string) =>
    id.replace(/[^A-Za-z0-9._+-]/g, (character) =>
        encodeURIComponent(character).replace(/%/g, '='),
    ) || 'unknown'

export type GitPerson = { name: string; email: string }

export const playerEmail = (id: string) => `${localPart(id)}@${playerEmailDomain}`

/** The author of a player's write: the name the app shows, and the player's id as an e-mail. */
export const playerAuthor = (user: SessionUser): GitPerson => ({
    name: gitSafe(displayName(user)),
    email: playerEmail(user.id),
})

/** The committer of every commit Shelf makes: this server, by the machine it runs on (replicas differ). */
export const serverCommitter = (): GitPerson => ({
    name: gitSafe(`Shelf on ${hostname()}`),
    email: 'server@shelf.invalid',
})

/** The commit message's one line, whatever the name or target hold. */
export const oneLine = (text: string) => text.replace(/\s+/g, ' ').trim()

/** The variables git reads the author and committer of a new commit from. */
export const identityEnvironment = (
    author: GitPerson,
    committer: GitPerson,
    dates: { author?: string } = {},
) => ({
    GIT_AUTHOR_NAME: author.name,
    GIT_AUTHOR_EMAIL: author.email,
    GIT_COMMITTER_NAME: committer.name,
    GIT_COMMITTER_EMAIL: committer.email,
    ...(dates.author ? { GIT_AUTHOR_DATE: dates.author } : {}),
})
