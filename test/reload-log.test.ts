/**
 * The reload lines of `shelf serve` count what the owner changed: a save through a temporary
 * file (as sed -i and many editors save) is one file, a removed folder is named once, and a new
 * empty folder is named as made, not removed.
 */
import { spawn } from 'node:child_process'
import { mkdir, rename, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { repository, shelfArguments } from './support/built-cli.js'
import { copyContent } from './support/server.js'

/** Generous: a build may come first, and the machine may be busy. */
const deadline = 60_000

test('a save through a temporary file is one file, a removed folder one line', async () => {
    const content = await copyContent()
    const env = { ...process.env }
    delete env.PORT
    const child = spawn(
        process.execPath,
        await shelfArguments(['serve', '--content', content, '--port', '0', '--host', '127.0.0.1']),
        { cwd: repository, env, stdio: ['ignore', 'pipe', 'pipe'] },
    )
    const lines: string[] = []
    const waiters: { pattern: RegExp; resolve: (line: string) => void }[] = []
    // Said in a failure's message: a server that stopped says why on its standard error.
    let errors = ''
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (errors += chunk))
    let state = 'running'
    const exited = new Promise<void>((resolve) =>
        child.once('exit', (code, signal) => {
            state = `exited with ${signal ?? code}`
            resolve()
        }),
    )
    createInterface({ input: child.stdout }).on('line', (line) => {
        lines.push(line)
        for (const waiter of waiters.filter(({ pattern }) => pattern.test(line))) {
            waiters.splice(waiters.indexOf(waiter), 1)
            waiter.resolve(line)
        }
    })
    const next = (pattern: RegExp) =>
        new Promise<string>((resolve, reject) => {
            const timer = setTimeout(
                () =>
                    reject(
                        new Error(
                            `no line matching ${pattern} (the server ${state}):\n${lines.join('\n')}\nstandard error:\n${errors}`,
                        ),
                    ),
                deadline,
            )
            waiters.push({
                pattern,
                resolve: (line) => {
                    clearTimeout(timer)
                    resolve(line)
                },
            })
        })
    try {
        await next(/^watching every folder/)
        const record = join(content, 'levels/city-lights/item.yaml')
        const temporary = join(content, 'levels/city-lights/sedX4Yq2b')
        const before = lines.length
        const saved = next(/^reloaded .*item\.yaml/)
        await writeFile(temporary, 'title: City Lights, saved again\nrating: 24\n')
        await rename(temporary, record)
        const savedLine = await saved
        assert.match(savedLine, /^reloaded levels\/city-lights\/item\.yaml in \d+ ms$/)
        // A machine too busy to see the write and the rename in one batch shows the temporary
        // file on a line of its own first, never on the line of the saved file.
        const earlier = lines
            .slice(before, lines.indexOf(savedLine, before))
            .filter((line) => line.startsWith('reloaded '))
        for (const line of earlier)
            assert.match(
                line,
                /^reloaded levels\/city-lights\/sedX4Yq2b in \d+ ms$/,
                `a line before the saved file's: ${line}`,
            )
        const removed = next(/^reloaded /)
        await rm(join(content, 'levels/morning-dew'), { recursive: true })
        assert.match(await removed, /^reloaded levels\/morning-dew \(removed\) in \d+ ms$/)
        const made = next(/^reloaded /)
        await mkdir(join(content, 'levels/city-lights/comments'))
        assert.match(
            await made,
            /^reloaded levels\/city-lights\/comments \(new folder\) in \d+ ms$/,
        )
    } finally {
        // A server that stopped by itself has nothing left to stop; its exit is not waited for again.
        child.kill('SIGTERM')
        await exited
        await rm(content, { recursive: true, force: true })
    }
})

test.run()
