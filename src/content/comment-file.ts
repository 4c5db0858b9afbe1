import { stringify } from 'yaml'
import { parseTime } from './records.js'
import type { LocalizedText } from './text.js'

/**
 * A comment's file, `<type>/<item>/comments/<name>.md`: who wrote it and when in the front matter
 * (schemas/comment.schema.json), the comment itself as the Markdown body. Written and read here,
 * so the two never drift apart.
 */
export type CommentRecord = {
    name: string
    file: string
    author: LocalizedText
    authorId?: string
    /** The handle of the player who wrote it, and the person its author is (`users/<name>`). */
    authorHandle?: string
    authorUser?: string
    time: number
    content: string
}

/** The order an item's comments are served in: newest first, then by name. */
export const commentOrder = (a: CommentRecord, b: CommentRecord) =>
    b.time - a.time || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)

/** The folder of an item's comments, inside the item's folder. */
export const commentsFolder = 'comments'

/** A comment's record from its file's validated front matter and its body. */
export const commentFromFile = (
    name: string,
    file: string,
    frontMatter: Record<string, unknown>,
    body: string | undefined,
): CommentRecord => {
    const { author, authorId, authorHandle, authorUser, time } = frontMatter as Pick<
        CommentRecord,
        'author' | 'authorId' | 'authorHandle' | 'authorUser'
    > & { time: unknown }
    const content = body ?? ''
    return {
        name,
        file,
        author,
        authorId,
        authorHandle,
        authorUser,
        time: parseTime(time) ?? 0,
        content,
    }
}

/** The path and text of a new comment on the item in `itemFolder`. */
export const commentFile = (
    itemFolder: string,
    name: string,
    comment: {
        author: string
        authorId: string
        authorHandle: string
        time: Date
        content: string
    },
) => {
    const { author, authorId, authorHandle, time } = comment
    const frontMatter = stringify(
        { author, authorId, authorHandle, time: time.toISOString() },
        { lineWidth: 0 },
    )
    return {
        path: `${itemFolder}/${commentsFolder}/${name}.md`,
        bytes: `---\n${frontMatter}---\n${comment.content}\n`,
    }
}
