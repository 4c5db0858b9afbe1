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
    time: number
    content: string
}

/** The folder of an item's comments, inside the item's folder. */
export const commentsFolder = 'comments'

/** A comment's record from its file's validated front matter and its body. */
export const commentFromFile = (
    name: string,
    file: string,
    frontMatter: Record<string, unknown>,
    body: string | undefined,
): CommentRecord => {
    const { author, authorId, time } = frontMatter as {
        author: LocalizedText
        authorId?: string
        time: unknown
    }
    return { name, file, author, authorId, time: parseTime(time) ?? 0, content: body ?? '' }
}

/** The path and text of a new comment on the item in `itemFolder`. */
export const commentFile = (
    itemFolder: string,
    name: string,
    comment: { author: string; authorId: string; time: Date; content: string },
) => {
    const frontMatter = stringify(
        { author: comment.author, authorId: comment.authorId, time: comment.time.toISOString() },
        { lineWidth: 0 },
    )
    return {
        path: `${itemFolder}/${commentsFolder}/${name}.md`,
        bytes: `---\n${frontMatter}---\n${comment.content}\n`,
    }
}
