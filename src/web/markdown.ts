import type MarkdownIt from 'markdown-it'
import { requirePackage } from '../util/require-package.js'

/**
 * Descriptions, posts and comments are Markdown written by owners and players: raw HTML is not
 * Markdown here (it shows as text), and links keep markdown-it's own check, which refuses
 * `javascript:`, `vbscript:`, `file:` and `data:` (but for a few image types) URLs.
 */
const createMarkdown = () => {
    const markdown = new (requirePackage('markdown-it') as typeof MarkdownIt)({
        html: false,
        linkify: true,
        breaks: true,
    })
    const defaultLinkOpen =
        markdown.renderer.rules.link_open ??
        ((tokens, index, options, _env, self) => self.renderToken(tokens, index, options))
    markdown.renderer.rules.link_open = (tokens, index, options, env, self) => {
        // Links written by players earn them nothing from search engines, and open no door back to this page.
        tokens[index]!.attrSet('rel', 'nofollow ugc noopener noreferrer')
        return defaultLinkOpen(tokens, index, options, env, self)
    }
    return markdown
}

/**
 * markdown-it, and the entity tables and link finder it brings, are loaded by the first page
 * that shows Markdown rather than by every start: only browsers ask for pages, and bundled they
 * cost each start before its listening line.
 */
let markdown: ReturnType<typeof createMarkdown> | undefined

export const renderMarkdown = (text: string) => (markdown ??= createMarkdown()).render(text)

/** The first words of a text, for a page's description tag. */
export const summary = (text: string, length = 200) => {
    const plain = text.replace(/\s+/g, ' ').trim()
    return plain.length <= length ? plain : `${plain.slice(0, length - 1).trimEnd()}…`
}
