/**
 * Routes are found by their URL: every path in src/http/route-table.ts has its handler in the
 * file of src/http/routes/ that its URL names (`{name}` for the protocol name, `{type}` for a
 * `:type` parameter, `index` for `/`), and every file there is a route of the table.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'

const test = suite('route files')

const httpRoot = join(dirname(fileURLToPath(import.meta.url)), '..', 'src', 'http')
const table = readFileSync(join(httpRoot, 'route-table.ts'), 'utf8')

/** The groups of the table that are answered under `/{name}`. */
const underName = new Set(['sessionless', 'protocol'])

/** Each handler the table imports from routes/, by its name, with the file it comes from. */
const handlerFiles = new Map(
    [...table.matchAll(/import \{ ([^}]+) \} from '\.\/routes\/([^']+)\.js'/g)].flatMap(
        ([, names, file]) => names!.split(',').map((name) => [name.trim(), `${file}.ts`] as const),
    ),
)

/** Each route of the table: its group, method, path and handler. */
const routes = [...table.matchAll(/^ {8}(\w+): \[$|\b(get|post)\(\s*'([^']*)',\s*(\w+)/gm)]
    .reduce<{ group: string; method: string; path: string; handler: string }[]>(
        (found, [, group, method, path, handler]) => {
            if (group) found.push({ group, method: '', path: '', handler: '' })
            else
                found.push({
                    group: found.at(-1)?.group ?? '',
                    method: method!,
                    path: path!,
                    handler: handler!,
                })
            return found
        },
        [],
    )
    .filter((route) => route.method)

/** The file a URL names below routes/. */
const fileOf = (group: string, path: string) => {
    const segments = path
        .split('/')
        .filter(Boolean)
        .map((segment) => (segment.startsWith(':') ? `{${segment.slice(1)}}` : segment))
    if (underName.has(group)) segments.unshift('{name}')
    return `${segments.length ? segments.join('/') : 'index'}.ts`
}

test('the table is read: every group, and the routes of each', () => {
    const groups = new Set(routes.map((route) => route.group))
    assert.equal([...groups], ['sessionless', 'protocol', 'development', 'pages'])
    assert.ok(routes.length >= 30, `only ${routes.length} routes read`)
    assert.ok(routes.some((route) => route.path === '/:type/list' && route.group === 'protocol'))
})

test('each path has its handler in the file its URL names', () => {
    const misplaced = routes
        .filter(({ group, path, handler }) => handlerFiles.get(handler) !== fileOf(group, path))
        .map(
            ({ group, method, path, handler }) =>
                `${method.toUpperCase()} ${underName.has(group) ? '/{name}' : ''}${path}: ${handler} is in ${handlerFiles.get(handler) ?? 'no file of routes/'}, not ${fileOf(group, path)}`,
        )
    assert.equal(misplaced, [])
})

test('every file of routes/ is a route of the table', () => {
    const files = readdirSync(join(httpRoot, 'routes'), { recursive: true, encoding: 'utf8' })
        .filter((path) => path.endsWith('.ts'))
        .map((path) => path.split('\\').join('/'))
    const routed = new Set(routes.map(({ group, path }) => fileOf(group, path)))
    assert.equal(
        files.filter((file) => !routed.has(file)),
        [],
    )
})

test.run()
