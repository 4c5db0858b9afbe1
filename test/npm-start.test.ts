/**
 * `npm start` as a user runs it, in a copy of the project: it compiles nothing when nothing
 * changed since the last build, and an edit in src/ reaches the server it starts.
 */
import { spawn } from 'node:child_process'
import { appendFile, cp, readdir, readFile, rm, stat, symlink } from 'node:fs/promises'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { temporaryFolder } from './support/server.js'

const repository = fileURLToPath(new URL('..', import.meta.url))
/** Generous: a start after an edit compiles the project, on a machine shared with other work. */
const deadline = 120_000

type Run = { lines: string[]; stderr: string; code: number | null }

/**
 * `npm start -- ARGS` in `project`, in a process group of its own; `until` decides, line by line,
 * when to stop it (the whole group, npm and the server it started), or it runs to its end.
 */
const npmStart = (
    project: string,
    args: string[],
    until: (line: string) => boolean = () => false,
) =>
    new Promise<Run>((resolve, reject) => {
        const env = { ...process.env }
        delete env.PORT
        const child = spawn('npm', ['start', '--silent', '--', ...args], {
            cwd: project,
            env,
            detached: true,
            stdio: ['ignore', 'pipe', 'pipe'],
        })
        const lines: string[] = []
        let stderr = ''
        child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
        const stop = () => {
            try {
                process.kill(-child.pid!, 'SIGTERM')
            } catch {
                // already gone
            }
        }
        const timer = setTimeout(() => {
            stop()
            reject(
                new Error(
                    `npm start did not finish within ${deadline} ms:\n${lines.join('\n')}\n${stderr}`,
                ),
            )
        }, deadline)
        createInterface({ input: child.stdout }).on('line', (line) => {
            lines.push(line)
            if (until(line)) stop()
        })
        child.on('error', reject)
        child.on('close', (code) => {
            clearTimeout(timer)
            resolve({ lines, stderr, code })
        })
    })

const compiled = (run: Run) => run.stderr.includes('compiling')

test('npm start compiles nothing when nothing changed, and an edit in src/ reaches the server it starts', async () => {
    const project = await temporaryFolder('shelf-project-')
    try {
        // The project as a user has it after `npm install`: its sources and their last build (the
        // benchmarks' generated trees and git's objects are no part of it).
        for (const entry of await readdir(repository)) {
            if (['node_modules', '.git', 'bench', 'test'].includes(entry)) continue
            await cp(join(repository, entry), join(project, entry), {
                recursive: true,
                filter: (path) => !path.includes('/.shelf'),
            })
        }
        await symlink(join(repository, 'node_modules'), join(project, 'node_modules'), 'dir')
        const entryPoint = join(project, 'dist', 'cli', 'main.js')

        // The repository's own build may be older than its sources (edited, not yet started):
        // the first start brings it up to date, and only then is nothing changed.
        const first = await npmStart(project, ['--help'])
        assert.is(first.code, 0, first.stderr)
        const unchanged = await npmStart(project, ['--help'])
        assert.is(unchanged.code, 0, unchanged.stderr)
        assert.ok(
            unchanged.lines.some((line) => line.startsWith('Shelf:')),
            'the help is printed',
        )
        assert.not.ok(compiled(unchanged), `nothing is compiled: ${unchanged.stderr}`)
        const builtBefore = (await stat(entryPoint)).mtimeMs

        // An edit a user might make: the server says something more when it starts.
        await appendFile(
            join(project, 'src', 'cli', 'main.ts'),
            "\nconsole.log('edited in src/')\n",
        )
        let url: string | undefined
        const edited = await npmStart(
            project,
            ['--port', '0', '--host', '127.0.0.1', '--no-watch'],
            (line) => {
                url ??= /listening on (\S+)/.exec(line)?.[1]
                return url !== undefined
            },
        )
        assert.ok(compiled(edited), `the edit is compiled: ${edited.stderr}`)
        assert.ok(
            edited.lines.includes('edited in src/'),
            `the edit runs: ${edited.lines.join('\n')}`,
        )
        assert.ok(url, `the server listened: ${edited.lines.join('\n')}\n${edited.stderr}`)
        assert.ok(
            (await readFile(entryPoint, 'utf8')).includes('edited in src/'),
            'the build holds the edit',
        )
        assert.ok((await stat(entryPoint)).mtimeMs > builtBefore)

        const again = await npmStart(project, ['--help'])
        assert.not.ok(
            compiled(again),
            `once built, the edit is not compiled again: ${again.stderr}`,
        )
        assert.ok(again.lines.includes('edited in src/'))
    } finally {
        await rm(project, { recursive: true, force: true })
    }
})

test.run()
