import type { CommentRecord } from '../content/comment-file.js'
import type { PageRequest } from './page-frame.js'
import { timeView } from './page-frame.js'

/** A comment as the pages show it: its text stays plain text, as in the app. */
export const commentView = (request: PageRequest, comment: CommentRecord) => ({
    author: request.view.renderer.text(comment.author),
    time: timeView(request, comment.time),
    content: comment.content,
})
