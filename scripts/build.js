#!/usr/bin/env node
/**
 * Builds Shelf into dist/: type-checks src/, bundles it with esbuild, and precompiles its content
 * validators. With `--if-changed` it does nothing when the sources are those of the last build
 * (scripts/start.js makes the same check in the server's own process): a start then costs no
 * build (seconds), only this check (a hash of about a megabyte of sources, milliseconds). An edit
 * in src/, the schemas, the TypeScript settings or the installed packages changes the hash, so
 * the next start builds it. Plain JavaScript, so it runs before anything is built.
 */
import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import {
    existsSync,
    mkdirSync,
    readdirSync,
    readFileSync,
    rmSync,
    statSync,
    writeFileSync,
} from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const dist = join(root, 'dist')
const stampFile = join(dist, '.sources-sha1')
/** tsc's record of what it last checked, kept across builds so that a check after an edit is quick. */
const typeCheckRecord = '.tsbuildinfo'
const inputs = [
    'src',
    'schemas',
    'scripts/build.js',
    'tsconfig.json',
    'tsconfig.build.json',
    'package.json',
    'package-lock.json',
]

/** Every file below `path` (or `path` itself), in a stable order. */
const filesOf = (path) => {
    const info = statSync(path, { throwIfNoEntry: false })
    if (!info?.isDirectory()) return info ? [path] : []
    return readdirSync(path, { withFileTypes: true, recursive: true })
        .filter((entry) => entry.isFile())
        .map((entry) => join(entry.parentPath ?? entry.path, entry.name))
        .sort()
}

const sourcesHash = () => {
    const digest = createHash('sha1')
    for (const input of inputs) {
        for (const file of filesOf(join(root, input))) {
            digest.update(`${relative(root, file)}\0`)
            digest.update(readFileSync(file))
            digest.update('\0')
        }
    }
    return digest.digest('hex')
}

const run = (args) => {
    const { status } = spawnSync(process.execPath, args, { cwd: root, stdio: 'inherit' })
    if (status !== 0) process.exit(status ?? 1)
}

/**
 * One module for everything a start loads (Node 20 spent most of a start finding, reading and
 * compiling some 270 ES modules and the CommonJS of koa, yaml and gray-matter), the chart
 * worker, the worker reading resources, and the validators' precompiler. What is imported on
 * demand stays on demand: code reached only through `import()` goes into chunks of its own, and
 * the packages loaded only for some requests (ajv, qrcode, koa-body, ioredis) are left to be
 * loaded from node_modules, as engine packages always are. So is iconv-lite: raw-body loads its
 * index at once, but its half a megabyte of encoding tables only to decode a charset, which
 * Shelf never asks for; bundled, every start read and parsed them. Every output lies two folders below
 * the project, as every source does, so that paths like `../../web/` taken from
 * `import.meta.url` still lead to the same place.
 */
const bundle = async () => {
    const { build } = await import('esbuild')
    await build({
        absWorkingDir: root,
        entryPoints: {
            'cli/main': 'src/cli/main.ts',
            'charts/chart-worker': 'src/charts/chart-worker.ts',
            'content/resource-worker': 'src/content/resource-worker.ts',
            'content/snapshot-worker': 'src/content/snapshot-worker.ts',
            'watch/watch-worker': 'src/watch/watch-worker.ts',
            'catalog/search-index-worker': 'src/catalog/search-index-worker.ts',
            'cli/precompile-validators': 'src/cli/precompile-validators.ts',
        },
        outdir: dist,
        chunkNames: 'chunks/[name]-[hash]',
        bundle: true,
        splitting: true,
        format: 'esm',
        platform: 'node',
        target: 'node20',
        external: ['ajv', 'ajv/*', 'qrcode', 'koa-body', 'ioredis', 'iconv-lite'],
        // The CommonJS packages bundled `require` Node's own modules, which an ES module has no
        // `require` for.
        banner: {
            js: "import { createRequire as shelfCreateRequire } from 'node:module'\nconst require = shelfCreateRequire(import.meta.url)",
        },
        logLevel: 'warning',
    })
}

/** Whether dist/ was built from the sources as they are now. */
export const isBuilt = () =>
    existsSync(join(dist, 'cli', 'main.js')) &&
    existsSync(stampFile) &&
    readFileSync(stampFile, 'utf8').trim() === sourcesHash()

/** Builds src/ into dist/ and precompiles the validators; exits the process if a step fails. */
export const build = async () => {
    const hash = sourcesHash()
    run([join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'])
    // Chunks are named by their content: those of an earlier build would pile up.
    mkdirSync(dist, { recursive: true })
    for (const entry of readdirSync(dist, { withFileTypes: true }))
        if (entry.name !== typeCheckRecord) rmSync(join(dist, entry.name), { recursive: true })
    await bundle()
    run([join(dist, 'cli', 'precompile-validators.js')])
    writeFileSync(stampFile, `${hash}\n`)
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
    const ifChanged = process.argv.includes('--if-changed')
    if (!ifChanged || !isBuilt()) await build()
}
