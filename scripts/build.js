#!/usr/bin/env node
/**
 * Compiles Shelf into dist/ and precompiles its content validators. With `--if-changed` it does
 * nothing when the sources are those of the last build (scripts/start.js makes the same check in
 * the server's own process): a start then costs no compilation (seconds), only this check (a hash
 * of about a megabyte of sources, milliseconds). An edit in src/, the schemas, the TypeScript settings or the installed packages
 * changes the hash, so the next start compiles it. Plain JavaScript, so it runs before anything
 * is compiled.
 */
import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const stampFile = join(root, 'dist', '.sources-sha1')
const inputs = [
    'src',
    'schemas',
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

/** Whether dist/ was built from the sources as they are now. */
export const isBuilt = () =>
    existsSync(join(root, 'dist', 'cli', 'main.js')) &&
    existsSync(stampFile) &&
    readFileSync(stampFile, 'utf8').trim() === sourcesHash()

/** Compiles src/ into dist/ and precompiles the validators; exits the process if a step fails. */
export const build = () => {
    const hash = sourcesHash()
    run([join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'])
    run([join(root, 'dist', 'content', 'precompile-validators.js')])
    writeFileSync(stampFile, `${hash}\n`)
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
    const ifChanged = process.argv.includes('--if-changed')
    if (!ifChanged || !isBuilt()) build()
}
