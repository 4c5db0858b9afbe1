#!/usr/bin/env node
/**
 * `npm test`'s runner: the test files split between uvu processes that run side by side (two by
 * default, `SHELF_TEST_LANES` to change it). Most of a test's time is spent waiting on the
 * servers, browsers, git, nginx and Redis it starts, so two lanes on two cores take little more
 * than half the time of one. Each lane is one plain uvu run; its output is printed whole when it
 * ends, so lanes never interleave, and a summary in uvu's own words comes last.
 *
 *   node scripts/test.js [PATTERN]     PATTERN: a regular expression on the test files' names
 *
 * Files that share anything (the example folder, dist/) only read it: dist/ is brought up to
 * date once here, before the lanes start, rather than by whichever lane asks first.
 */
import { spawn, spawnSync } from 'node:child_process'
import { readdirSync, statSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { stripVTControlCharacters } from 'node:util'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const testFolder = join(root, 'test')
const lanes = Math.max(1, Number(process.env.SHELF_TEST_LANES) || 2)
const wanted = new RegExp(process.argv[2] ?? '')

const files = readdirSync(testFolder)
    .filter((name) => name.endsWith('.test.ts') && wanted.test(name))
    .map((name) => ({ name, bytes: statSync(join(testFolder, name)).size }))
if (files.length === 0) {
    console.error(`no test file matches ${wanted}`)
    process.exit(1)
}

const built = spawnSync(process.execPath, [join(root, 'scripts', 'build.js'), '--if-changed'], {
    cwd: root,
    stdio: 'inherit',
})
if (built.status !== 0) process.exit(built.status ?? 1)

/**
 * Longest first, each to the lane with the least so far. A file's size stands for its time: the
 * long files are the ones with many cases, and a lane ahead or behind by one file costs a few
 * seconds, not the halving.
 */
const shares = Array.from({ length: Math.min(lanes, files.length) }, () => ({
    bytes: 0,
    names: /** @type {string[]} */ ([]),
}))
for (const file of files.sort((a, b) => b.bytes - a.bytes)) {
    const lightest = shares.reduce((least, share) => (share.bytes < least.bytes ? share : least))
    lightest.bytes += file.bytes
    lightest.names.push(file.name)
}

const escaped = (name) => name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
/** uvu's totals, as it prints them at the end of a run (colours removed). */
const totalsOf = (output) => {
    const plain = stripVTControlCharacters(output)
    const count = (label) =>
        Number(new RegExp(`^\\s*${label}:\\s*(\\d+)`, 'm').exec(plain)?.[1] ?? 0)
    return { total: count('Total'), passed: count('Passed'), skipped: count('Skipped') }
}

const started = Date.now()
const runLane = (names, index) =>
    new Promise((resolve) => {
        const pattern = `^(${names.sort().map(escaped).join('|')})$`
        const lane = spawn(
            process.execPath,
            ['--import', 'tsx', join(root, 'node_modules', 'uvu', 'bin.js'), 'test', pattern],
            {
                cwd: root,
                stdio: ['ignore', 'pipe', 'pipe'],
                env: { ...process.env, FORCE_COLOR: '1' },
            },
        )
        let output = ''
        lane.stdout.setEncoding('utf8').on('data', (chunk) => (output += chunk))
        lane.stderr.setEncoding('utf8').on('data', (chunk) => (output += chunk))
        lane.once('close', (code, signal) => {
            const seconds = ((Date.now() - started) / 1000).toFixed(1)
            process.stdout.write(
                `\n── lane ${index + 1} of ${shares.length} (${names.length} files), ended after ${seconds} s ──\n${output}`,
            )
            resolve({ code: code ?? (signal ? 1 : 0), ...totalsOf(output) })
        })
    })

const results = await Promise.all(shares.map(({ names }, index) => runLane(names, index)))
const sum = (key) => results.reduce((total, result) => total + result[key], 0)
const failed = results.some((result) => result.code !== 0)
process.stdout.write(
    `\n── all lanes ──\n  Total:     ${sum('total')}\n  Passed:    ${sum('passed')}\n  Skipped:   ${sum('skipped')}\n  Duration:  ${Date.now() - started}ms\n\n`,
)
process.exit(failed ? 1 : 0)
