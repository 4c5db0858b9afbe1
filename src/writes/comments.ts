import { displayName, type SessionUser } from '../auth/sessions.js'
import { commentFile, type CommentRecord } from '../content/comment-file.js'
import type { ItemRecord } from '../content/load.js'
import { Refusal } from '../util/refusal.js'
import { generatedName, itemLocation, type ContentWriter } from './content-writer.js'

/** The folder an item's comments go in; a single-file item has none, and takes no comment. */
export const commentFolderOf = (item: ItemRecord) => {
    const { folder } = itemLocation(item)
    if (!folder)
        throw new Refusal(
            'invalid',
            `${item.type} "${item.name}" is a single file (${item.file}), which has no folder for comments`,
        )
    return folder
}

/** Writes a player's comment on the item in `itemFolder`, under a new name. */
export const writeComment = (
    writer: ContentWriter,
    itemFolder: string,
    user: SessionUser,
    content: string,
) =>
    writer.updateFiles([
        commentFile(itemFolder, generatedName(), {
            author: displayName(user),
            authorId: user.id,
            time: new Date(),
            content,
        }),
    ])

/** Removes a comment's file; one already gone (a second delete) is not found. */
export const removeComment = (writer: ContentWriter, comment: CommentRecord) =>
    writer.updateFiles([{ path: comment.file, required: true }])
