import matter from 'gray-matter'
import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Document, type Node } from 'yaml'
import { ContentError } from './problems.js'

/** A parsed record file, able to say where a value came from so that problems can name a line. */
export type ParsedFile = {
    data: unknown
    /** Markdown body of an `.md` file (front matter files only). */
    body?: string
    locate(path: readonly (string | number)[]): { line: number; column: number } | undefined
}

/**
 * Parses `.json`, `.yaml`/`.yml` and `.md` (front matter) files. JSON is read with JSON.parse so
 * that YAML's leniency never accepts a file that other JSON tools would reject; positions for
 * every format come from the YAML parser, which reads JSON too.
 */
export const parseRecordFile = (file: string, text: string): ParsedFile => {
    if (file.endsWith('.json')) return parseJson(text)
    if (file.endsWith('.md')) return parseMarkdown(text)
    return parseYaml(text, 0)
}

const parseJson = (text: string): ParsedFile => {
    let data: unknown
    try {
        data = JSON.parse(text)
    } catch (error) {
        throw new ContentError(`invalid JSON: ${(error as Error).message}`, jsonErrorPosition(text, error as Error))
    }
    // Positions are only needed to report a problem, so the slower YAML parse waits until then.
    let positions: ParsedFile | undefined
    return { data, locate: (path) => (positions ??= parseYaml(text, 0)).locate(path) }
}

const jsonErrorPosition = (text: string, error: Error) => {
    const match = /position (\d+)/.exec(error.message)
    if (!match) return {}
    const before = text.slice(0, Number(match[1])).split('\n')
    return { line: before.length, column: (before.at(-1)?.length ?? 0) + 1 }
}

const parseYaml = (text: string, lineOffset: number): ParsedFile => {
    const lineCounter = new LineCounter()
    const document = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true })
    const [error] = document.errors
    if (error) {
        const [start] = error.pos
        const { line, col } = lineCounter.linePos(start)
        throw new ContentError(`invalid YAML: ${firstLine(error.message)}`, { line: line + lineOffset, column: col })
    }
    return {
        data: document.toJS() ?? {},
        locate: (path) => locateInDocument(document, lineCounter, path, lineOffset),
    }
}

const firstLine = (message: string) => message.split('\n')[0] ?? message

/**
 * The deepest node along `path` that exists: a missing key points at its parent object. A key
 * of a map points at the key itself, which is where a person looks for a misspelt field.
 */
const locateInDocument = (document: Document, lineCounter: LineCounter, path: readonly (string | number)[], lineOffset: number) => {
    let node: unknown = document.contents
    let target: unknown = node
    for (const key of path) {
        if (isMap(node)) {
            const pair = node.items.find((item) => (isScalar(item.key) ? item.key.value : item.key) === key)
            if (!pair) break
            target = pair.key
            node = pair.value
        } else if (isSeq(node)) {
            const child = node.get(key, true) as unknown
            if (child === undefined) break
            target = node = child
        } else {
            break
        }
    }
    const range = (target as Node | null)?.range
    if (!range) return undefined
    const { line, col } = lineCounter.linePos(range[0])
    return { line: line + lineOffset, column: col }
}

const frontMatterOpening = /^---\r?\n/

const parseMarkdown = (text: string): ParsedFile => {
    if (!frontMatterOpening.test(text)) return { data: {}, body: text.trim(), locate: () => undefined }
    // gray-matter splits the file; its own YAML engine is replaced by `yaml` so positions and errors
    // match the other formats. The front matter it hands over starts with the newline that ends
    // the opening `---`, so its line numbers are already the file's.
    const parsed = matter(text, { engines: { yaml: () => ({}) } })
    const frontMatter = parseYaml(parsed.matter, 0)
    return { ...frontMatter, body: parsed.content.trim() }
}
