import type { CommentRecord } from '../content/comment-file.js'
import type { PageRequest } from './page-frame.js'
import { timeView } from './page-frame.js'
import { renderMarkdown } from './markdown.js'

/** A comment as the pages show it: its Markdown rendered safely, as descriptions are. */
export const commentView = (request: PageRequest, comment: CommentRecord) => ({
    author: request.view.renderer.text(comment.author),
    time: timeView(request, comment.time),
    html: renderMarkdown(comment.content),
})
