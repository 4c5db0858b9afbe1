import { spawn } from 'node:child_process'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

/** The repository's root: the CLI runs from here, as `npm start` runs it. */
export const repository = fileURLToPath(new URL('../..', import.meta.url))

let built: Promise<void> | undefined

/**
 * Node's arguments that run Shelf's command line as it ships, `dist/cli/main.js`, built first
 * when src/ changed since the last build (the same check `npm start` makes). A run through tsx
 * would compile the sources in every child: a second of CPU each, a minute of the suite.
 */
export const shelfArguments = async (args: readonly string[]): Promise<string[]> => {
    built ??= new Promise<void>((resolve, reject) => {
        const build = spawn(process.execPath, ['scripts/build.js', '--if-changed'], {
            cwd: repository,
            stdio: ['ignore', 'inherit', 'inherit'],
        })
        build.once('error', reject)
        build.once('exit', (code) =>
            code === 0 ? resolve() : reject(new Error(`scripts/build.js exited ${code}`)),
        )
    })
    await built
    return [join(repository, 'dist', 'cli', 'main.js'), ...args]
}
