import type matter from 'gray-matter'
import {
    isMap,
    isScalar,
    isSeq,
    LineCounter,
    parseDocument,
    visit,
    type Document,
    type Node,
} from 'yaml'
import { jsonErrorPosition } from '../util/json-position.js'
import { requirePackage } from '../util/require-package.js'
import { ContentError } from './problems.js'
import { explainYamlError } from './yaml-errors.js'

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
        throw new ContentError(
            `invalid JSON: ${(error as Error).message}`,
            jsonErrorPosition(text, error as Error),
        )
    }
    requireShallow(data)
    // Positions are only needed to report a problem, so the slower YAML parse waits until then.
    let positions: ParsedFile | undefined
    return { data, locate: (path) => (positions ??= parseYaml(text, 0)).locate(path) }
}

const parseYaml = (text: string, lineOffset: number): ParsedFile => {
    const lineCounter = new LineCounter()
    // yaml's own unique-key check compares every key with every other (25,000 keys took 12 s).
    const document = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: false })
    if (document.errors.length) {
        const { message, line, column } = explainYamlError(document.errors, text, lineCounter)
        throw new ContentError(`invalid YAML: ${message}`, { line: line + lineOffset, column })
    }
    const duplicate = firstDuplicateKey(document)
    if (duplicate) {
        const { line, col } = lineCounter.linePos(duplicate.offset)
        throw new ContentError(
            `invalid YAML: the key "${duplicate.key}" is given twice in one map`,
            { line: line + lineOffset, column: col },
        )
    }
    const data: unknown = document.toJS() ?? {}
    requireShallow(data)
    return {
        data,
        locate: (path) => locateInDocument(document, lineCounter, path, lineOffset),
    }
}

/** The first key repeated within one map, in one pass with a set per map. */
const firstDuplicateKey = (document: Document) => {
    let found: { key: string; offset: number } | undefined
    visit(document, {
        Map(_, map) {
            const seen = new Set<unknown>()
            for (const { key } of map.items) {
                const value = isScalar(key) ? key.value : String(key)
                if (seen.size === seen.add(value).size) {
                    found = {
                        key: String(value).slice(0, 100),
                        offset: (key as Node | null)?.range?.[0] ?? 0,
                    }
                    return visit.BREAK
                }
            }
            return undefined
        },
    })
    return found
}

/** Deeper than any record needs; JSON.parse takes 100,000 levels, which answers could not then be made of. */
const maxDepth = 64

/** Refuses data nested deeper than `maxDepth`, walking it without recursion. */
const requireShallow = (data: unknown) => {
    const pending: [unknown, number][] = [[data, 0]]
    while (pending.length) {
        const [value, depth] = pending.pop()!
        if (typeof value !== 'object' || value === null) continue
        if (depth >= maxDepth)
            throw new ContentError(`values are nested more than ${maxDepth} levels deep`)
        for (const child of Object.values(value)) pending.push([child, depth + 1])
    }
}

/**
 * The deepest node along `path` that exists: a missing key points at its parent object. A key
 * of a map points at the key itself, which is where a person looks for a misspelt field.
 */
const locateInDocument = (
    document: Document,
    lineCounter: LineCounter,
    path: readonly (string | number)[],
    lineOffset: number,
) => {
    let node: unknown = document.contents
    let target: unknown = node
    for (const key of path) {
        if (isMap(node)) {
            const pair = node.items.find(
                (item) => (isScalar(item.key) ? item.key.value : item.key) === key,
            )
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

/**
 * gray-matter is loaded at the first Markdown file parsed, not by every start: with it come
 * js-yaml and the esprima js-yaml loads, and a warm start takes its records from the parse cache.
 */
let grayMatter: typeof matter | undefined
const loadGrayMatter = () => (grayMatter ??= requirePackage('gray-matter') as typeof matter)
const splitFrontMatter = (text: string) =>
    loadGrayMatter()(text, {
        engines: { yaml: () => ({}) },
    })

const frontMatterOpening = /^---\r?\n/
const frontMatterClosing = /\r?\n---[ \t]*(\r?\n|$)/

const parseMarkdown = (text: string): ParsedFile => {
    if (!frontMatterOpening.test(text))
        return { data: {}, body: text.trim(), locate: () => undefined }
    // gray-matter takes a front matter that never closes for the whole file: a file cut short
    // would load without its body, and a forgotten `---` would turn the text into fields.
    if (!frontMatterClosing.test(text.slice(3)))
        throw new ContentError(
            'the front matter opened by "---" on line 1 is never closed: add a line "---" after the fields',
            { line: 1, column: 1 },
        )
    // gray-matter splits the file; its own YAML engine is replaced by `yaml` so positions and errors
    // match the other formats. The front matter it hands over starts with the newline that ends
    // the opening `---`, so its line numbers are already the file's.
    const parsed = splitFrontMatter(text)
    // gray-matter splits at the newline before the closing `---`: in a file saved with Windows
    // line endings the front matter's last line keeps its carriage return, which YAML would
    // read as part of the value (`time: 5` as the text "5\r").
    const frontMatter = parseYaml(parsed.matter.replace(/\r$/, ''), 0)
    return { ...frontMatter, body: parsed.content.trim() }
}
