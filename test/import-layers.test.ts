/**
 * The shape of the code, checked on its imports: data flows one way (files → records → catalog
 * snapshot → answers → HTTP, pages, export), so no folder of src/ imports another that imports
 * it back, and the domain folders never reach the edges that serve them, nor Koa. Every import
 * counts, `import type` and `import()` included. The checker runs on a made-up tree first, so
 * that it cannot pass by finding nothing.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, posix, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'

const test = suite('import layers')

const srcRoot = join(dirname(fileURLToPath(import.meta.url)), '..', 'src')

/** Folders that hold what Shelf knows and does, whoever asks; `config.ts` is read by them all. */
const domain = [
    'charts',
    'content',
    'catalog',
    'answers',
    'writes',
    'rooms',
    'auth',
    'git',
    'watch',
    'util',
    'updates',
    'config.ts',
]
/** Folders (and files) that serve the domain to someone: over HTTP, as pages, as files, as a command. */
const edges = ['http', 'web', 'export', 'cli', 'server.ts']

/** What each layer may not import, beyond the rule against cycles. */
const forbidden: Record<string, string[]> = {
    ...Object.fromEntries(domain.map((layer) => [layer, edges])),
    // The pages and the export read answers/, as the JSON routes do, not the routes themselves.
    web: ['http'],
    export: ['http'],
}

/** Packages of the HTTP edge: a domain folder speaks in plain values, never in a Koa context. */
const edgePackages = ['koa', 'koa-body', '@koa/router', '@koa/etag']
const forbiddenPackages: Record<string, string[]> = Object.fromEntries(
    domain.map((layer) => [layer, edgePackages]),
)

type Import = { from: string; to: string }

/** A file's layer: its top folder under src/, or the file itself when it sits in src/. */
const layerOf = (path: string) => path.split('/')[0] ?? path

/** Every import between files of src/, by paths relative to src/ (`answers/forms.ts`). */
const importsOf = (files: Map<string, string>): Import[] =>
    [...files].flatMap(([from, text]) =>
        ts
            .preProcessFile(text, true, true)
            .importedFiles.map(({ fileName }) => fileName)
            .filter((specifier) => specifier.startsWith('./') || specifier.startsWith('../'))
            .map((specifier) => ({
                from,
                to: posix.join(posix.dirname(from), specifier).replace(/\.js$/, '.ts'),
            })),
    )

/** Every import of a package by a file of src/: the package's name, without a path inside it. */
const packageImportsOf = (files: Map<string, string>): Import[] =>
    [...files].flatMap(([from, text]) =>
        ts
            .preProcessFile(text, true, true)
            .importedFiles.map(({ fileName }) => fileName)
            .filter((specifier) => !specifier.startsWith('.') && !specifier.startsWith('node:'))
            .map((specifier) => ({
                from,
                to: specifier
                    .split('/')
                    .slice(0, specifier.startsWith('@') ? 2 : 1)
                    .join('/'),
            })),
    )

/** The folders that import each other round, each group with the imports that close its loop. */
const cycles = (imports: Import[]): string[] => {
    const graph = new Map<string, Map<string, Import>>()
    for (const entry of imports) {
        const [from, to] = [layerOf(entry.from), layerOf(entry.to)]
        if (from === to) continue
        if (!graph.has(from)) graph.set(from, new Map())
        if (!graph.get(from)!.has(to)) graph.get(from)!.set(to, entry)
    }
    // Tarjan's strongly connected components: any with two layers or more is a cycle.
    const index = new Map<string, number>()
    const low = new Map<string, number>()
    const stack: string[] = []
    const found: string[] = []
    const visit = (layer: string) => {
        index.set(layer, index.size)
        low.set(layer, index.get(layer)!)
        stack.push(layer)
        for (const next of graph.get(layer)?.keys() ?? []) {
            if (!index.has(next)) {
                visit(next)
                low.set(layer, Math.min(low.get(layer)!, low.get(next)!))
            } else if (stack.includes(next)) {
                low.set(layer, Math.min(low.get(layer)!, index.get(next)!))
            }
        }
        if (low.get(layer) !== index.get(layer)) return
        const group: string[] = []
        let member: string
        do {
            member = stack.pop()!
            group.push(member)
        } while (member !== layer)
        if (group.length < 2) return
        const inside = group.flatMap((from) =>
            [...(graph.get(from) ?? [])]
                .filter(([to]) => group.includes(to))
                .map(([, entry]) => `${entry.from} → ${entry.to}`),
        )
        found.push(`${group.sort().join(', ')} import each other: ${inside.join('; ')}`)
    }
    for (const layer of graph.keys()) if (!index.has(layer)) visit(layer)
    return found
}

/** Imports a layer may not make, whether or not they close a loop. */
const forbiddenImports = (imports: Import[]): string[] =>
    imports
        .filter(({ from, to }) => forbidden[layerOf(from)]?.includes(layerOf(to)))
        .map(({ from, to }) => `${from} → ${to}: ${layerOf(from)} may not import ${layerOf(to)}`)

/** Packages a layer may not import. */
const forbiddenPackageImports = (imports: Import[]): string[] =>
    imports
        .filter(({ from, to }) => forbiddenPackages[layerOf(from)]?.includes(to))
        .map(({ from, to }) => `${from} → ${to}: ${layerOf(from)} may not import ${to}`)

const sourceFiles = (root: string) =>
    new Map(
        readdirSync(root, { recursive: true, encoding: 'utf8' })
            .filter((path) => path.endsWith('.ts'))
            .map((path) => [
                relative(root, join(root, path)).split('\\').join('/'),
                readFileSync(join(root, path), 'utf8'),
            ]),
    )

test('the checker finds a made-up cycle, a made-up forbidden import and a forbidden package', () => {
    const files = new Map([
        ['catalog/catalog.ts', "import type { X } from '../content/load.js'"],
        ['content/load.ts', "export const y = await import('../catalog/catalog.js')"],
        ['answers/forms.ts', "import {\n    a,\n    b,\n} from '../http/routes/{name}/info.js'"],
        ['http/routes/{name}/info.ts', "import { forms } from '../../../answers/forms.js'"],
        ['web/page.ts', "export { z } from '../http/respond.js'"],
        ['writes/upload.ts', "import type { Context } from 'koa'\nimport { x } from 'yaml'"],
        ['http/body.ts', "const { koaBody } = await import('koa-body/lib/index.js')"],
    ])
    const imports = importsOf(files)
    assert.equal(imports.length, 5)
    const found = cycles(imports)
    assert.equal(found.length, 2, found.join('\n'))
    assert.ok(found.some((cycle) => cycle.startsWith('catalog, content import each other')))
    assert.ok(found.some((cycle) => cycle.startsWith('answers, http import each other')))
    assert.equal(forbiddenImports(imports), [
        'answers/forms.ts → http/routes/{name}/info.ts: answers may not import http',
        'web/page.ts → http/respond.ts: web may not import http',
    ])
    const packages = packageImportsOf(files)
    assert.equal(
        packages.map(({ to }) => to),
        ['koa', 'yaml', 'koa-body'],
    )
    assert.equal(forbiddenPackageImports(packages), [
        'writes/upload.ts → koa: writes may not import koa',
    ])
})

test('src/ has no cycle between folders and no forbidden import', () => {
    const files = sourceFiles(srcRoot)
    const imports = importsOf(files)
    // A scan that found nothing would pass: src/ has well over a hundred files, and the routes read answers/.
    assert.ok(files.size > 100, `only ${files.size} files found under ${srcRoot}`)
    assert.ok(imports.some(({ from, to }) => from.startsWith('http/') && to.startsWith('answers/')))
    for (const { to } of imports) assert.ok(files.has(to), `an import of a missing file: ${to}`)
    const packages = packageImportsOf(files)
    assert.ok(packages.some(({ from, to }) => from.startsWith('http/') && to === 'koa'))
    assert.equal(
        [...cycles(imports), ...forbiddenImports(imports), ...forbiddenPackageImports(packages)],
        [],
    )
})

test.run()
