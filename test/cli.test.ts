/**
 * The real command line, as a user runs it: `shelf serve …` in a child process, talked to over
 * HTTP, and its usage errors.
 */
import type { LevelItem, ServerInfo, ServerItemDetails } from '@sonolus/core'
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { repository, shelfArguments } from './support/built-cli.js'
import { exists } from './support/fixtures.js'
import { assertShape } from './support/response-shapes.js'
import { getJson, temporaryFolder } from './support/server.js'

/** Generous: the machine may be busy. */
const deadline = 60_000

/** The environment of every child, without a PORT of the caller's that would change the defaults. */
const childEnv = (extra: Record<string, string> = {}) => {
    const env: NodeJS.ProcessEnv = { ...process.env, ...extra }
    if (!('PORT' in extra)) delete env.PORT
    return env
}

type Exit = { code: number | null; signal: NodeJS.Signals | null }

type Shelf = {
    child: ChildProcess
    stdout: string[]
    stderr: () => string
    /** Resolves with the first stdout line matching `pattern`; rejects if the process ends first or the deadline passes. */
    line(pattern: RegExp): Promise<RegExpMatchArray>
    exited: Promise<Exit>
}

const running = new Set<ChildProcess>()

/** `node dist/cli/main.js …args` in the repository, as `npm start` runs it (built in `test.before`). */
let cliMain: string[]
const shelf = (args: string[], env = childEnv()): Shelf => {
    const child = spawn(process.execPath, [...cliMain, ...args], {
        cwd: repository,
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
    })
    running.add(child)
    const stdout: string[] = []
    let stderr = ''
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
    const lines = createInterface({ input: child.stdout! })
    lines.on('line', (line) => stdout.push(line))
    const exited = new Promise<Exit>((resolve) =>
        child.once('exit', (code, signal) => {
            running.delete(child)
            resolve({ code, signal })
        }),
    )
    const output = () => `stdout:\n${stdout.join('\n')}\nstderr:\n${stderr}`
    return {
        child,
        stdout,
        stderr: () => stderr,
        exited,
        line: (pattern) =>
            new Promise((resolve, reject) => {
                const seen = stdout
                    .map((line) => line.match(pattern))
                    .find((match) => match !== null)
                if (seen) return resolve(seen)
                const timer = setTimeout(
                    () =>
                        done(
                            new Error(
                                `no line matching ${pattern} within ${deadline} ms\n${output()}`,
                            ),
                        ),
                    deadline,
                )
                const onLine = (line: string) => {
                    const match = line.match(pattern)
                    if (match) done(undefined, match)
                }
                const onExit = () =>
                    done(
                        new Error(
                            `shelf ${args.join(' ')} exited before printing a line matching ${pattern}\n${output()}`,
                        ),
                    )
                const done = (error?: Error, match?: RegExpMatchArray) => {
                    clearTimeout(timer)
                    lines.off('line', onLine)
                    child.off('exit', onExit)
                    if (error) reject(error)
                    else resolve(match!)
                }
                lines.on('line', onLine)
                child.once('exit', onExit)
            }),
    }
}

/** Waits for the process to end, failing the test (and killing it) if it outlives the deadline. */
const exitOf = async (cli: Shelf): Promise<Exit> => {
    let timer: NodeJS.Timeout | undefined
    const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
            cli.child.kill('SIGKILL')
            reject(
                new Error(
                    `still running after ${deadline} ms\n${cli.stdout.join('\n')}\n${cli.stderr()}`,
                ),
            )
        }, deadline)
    })
    try {
        return await Promise.race([cli.exited, timeout])
    } finally {
        clearTimeout(timer)
    }
}

const listeningLine = /^listening on (http:\/\/127\.0\.0\.1:(\d+))$/

/** Starts `shelf serve` on a free loopback port and answers its URL once it listens. */
const serve = async (args: string[], env?: NodeJS.ProcessEnv) => {
    const cli = shelf(['serve', '--host', '127.0.0.1', '--cache', cache, ...args], env)
    const [, url, port] = await cli.line(listeningLine)
    return { cli, url: url!, port: Number(port) }
}

const stop = async (cli: Shelf) => {
    cli.child.kill('SIGTERM')
    return exitOf(cli)
}

let scratch: string
let cache: string

test.before(async () => {
    assertShape('ServerMessage', {}) // compile the response schemas before any request
    cliMain = await shelfArguments([])
    scratch = await temporaryFolder('shelf-cli-')
    cache = join(scratch, 'cache')
})

test.after(async () => {
    for (const child of running) child.kill('SIGKILL')
    if (scratch) await rm(scratch, { recursive: true, force: true })
})

test('serve prints "listening on http://127.0.0.1:PORT" and answers /service/info there; SIGTERM stops it', async () => {
    const { cli, url, port } = await serve(['--content', 'content', '--port', '0'])
    let exit: Exit
    try {
        assert.ok(port > 0, 'port 0 picks a free port, and the line names it')
        const { status, headers, body } = await getJson<ServerInfo>(`${url}/service/info`)
        assert.is(status, 200)
        assert.ok(headers.get('service-version'))
        assertShape('ServerInfo', body)
        assert.is(body.title, 'Shelf example')
    } finally {
        exit = await stop(cli)
    }
    assert.ok(exit.code === 0 || exit.signal === 'SIGTERM', `exit ${JSON.stringify(exit)}`)
})

test('serve says when the start is over: after every folder is watched, with the start snapshot on disk', async () => {
    const ownCache = join(scratch, 'saves-line-cache')
    // A state folder of its own (the last --cache wins), so that this start is a first one and saves its snapshot.
    const { cli } = await serve(['--content', 'content', '--port', '0', '--cache', ownCache])
    try {
        await cli.line(/^watching every folder after \d+ ms$/)
        await cli.line(/^the start's saves done after \d+ ms$/)
        const watching = cli.stdout.findIndex((line) => line.startsWith('watching every folder'))
        const saved = cli.stdout.findIndex((line) => line.startsWith("the start's saves done"))
        assert.ok(saved > watching, cli.stdout.join('\n'))
        // A first start writes its snapshot: whole (records and checks) once the line is printed.
        assert.ok(await exists(join(ownCache, 'start-records.jsonl')), 'the records are written')
        assert.ok(await exists(join(ownCache, 'start-checks.jsonl')), 'the checks are in place')
        assert.not.ok(await exists(join(ownCache, 'start-checks.jsonl.next')))
        // It names the build by its sources, so that building them again (npm ci) keeps it good.
        const header = JSON.parse(
            (await readFile(join(ownCache, 'start-records.jsonl'), 'utf8')).split('\n')[0]!,
        ) as { shelf: string }
        const sources = (await readFile(join(repository, 'dist', '.sources-sha1'), 'utf8')).trim()
        assert.match(sources, /^[0-9a-f]{40}$/)
        assert.is(header.shelf.split(':')[1], sources)
    } finally {
        await stop(cli)
    }
})

test('without --address, items carry the address the request arrived on as their source', async () => {
    const { cli, url } = await serve(['--content', 'content', '--port', '0'])
    try {
        const { status, body } = await getJson<ServerItemDetails<LevelItem>>(
            `${url}/service/levels/first-steps`,
        )
        assert.is(status, 200)
        assert.is(body.item.source, url)
        assert.is(body.item.engine.source, url)
        assertShape('LevelDetails', body)
    } finally {
        await stop(cli)
    }
})

test('serve answers /sonolus/ with Sonolus-Version and /service/ with Service-Version, and prints the link that opens the app', async () => {
    const { cli, url } = await serve([
        '--content',
        'content',
        '--port',
        '0',
        '--address',
        'https://shelf.example/levels-server',
    ])
    try {
        await cli.line(/^  web pages at http:\/\/127\.0\.0\.1:\d+\/ \(--no-web turns them off\)$/)
        await cli.line(
            /^  open in the app: https:\/\/open\.sonolus\.com\/shelf\.example\/levels-server\/ \(or add https:\/\/shelf\.example\/levels-server as a server in the app\)$/,
        )
        assert.not.ok(
            cli.stdout.some((line) => line.includes('▄')),
            'no QR code in a log: the output is not a terminal',
        )
        const { status, headers, body } = await getJson<ServerInfo>(`${url}/sonolus/info`)
        assert.is(status, 200)
        assert.ok(headers.get('sonolus-version'))
        assertShape('ServerInfo', body)
        const service = await getJson<ServerInfo>(`${url}/service/info`)
        assert.is(service.status, 200)
        assert.ok(service.headers.get('service-version'))
        assert.not.ok(service.headers.get('sonolus-version'))
    } finally {
        await stop(cli)
    }
})

test('PORT from the environment is used when --port is absent', async () => {
    const { cli, port } = await serve(['--content', 'content'], childEnv({ PORT: '0' }))
    try {
        assert.ok(port > 0 && port !== 3000, `PORT=0 picks a free port, got ${port}`)
    } finally {
        await stop(cli)
    }
})

test('--help prints every flag and exits 0', async () => {
    for (const args of [['--help'], ['serve', '--help']]) {
        const cli = shelf(args)
        const exit = await exitOf(cli)
        assert.is(exit.code, 0, `shelf ${args.join(' ')}`)
        const help = cli.stdout.join('\n')
        for (const flag of [
            '--content',
            '--port',
            '--host',
            '--address',
            '--name',
            '--drafts',
            '--no-sign-in',
            '--signature-key',
            '--session-secret',
            '--multiplayer-url',
            '--no-web',
            '--web-client',
            '--git',
            '--git-pull',
            '--git-pull-every',
            '--git-push',
            '--git-webhook-secret',
        ]) {
            assert.ok(help.includes(flag), `shelf ${args.join(' ')} mentions ${flag}`)
        }
    }
})

test('usage errors exit with code 2 and say what is wrong on stderr', async () => {
    const cases: [string[], RegExp[]][] = [
        [['serve', '--bogus'], [/--bogus/]],
        [
            ['serve', '--port', 'abc'],
            [/--port/, /abc/],
        ],
        [
            ['serve', '--port', '70000'],
            [/--port/, /70000/],
        ],
        [
            ['serve', '--name', 'BAD'],
            [/--name/, /BAD/],
        ],
        [
            ['serve', '--address', 'example.com'],
            [/--address/, /example\.com/],
        ],
        [
            ['serve', '--session-lifetime', '30'],
            [/--session-lifetime/, /30m/],
        ],
        [['serve', '--signature-window', '-5s'], [/--signature-window/]],
        [
            ['serve', '--multiplayer-url', 'https://rooms.test'],
            [/--multiplayer-url/, /wss:\/\//],
        ],
        [
            ['serve', '--git-pull-every', 'often'],
            [/--git-pull-every/, /often/],
        ],
        [
            ['serve', '--git', '--git-webhook-secret', 'a long enough secret'],
            [/--git-webhook-secret starts a pull, so it needs --git-pull/],
        ],
        [
            ['serve', '--git-pull', '--git-webhook-secret', 'short'],
            [/--git-webhook-secret must be 16 characters or more/],
        ],
        [['serv'], [/serv/]],
    ]
    for (const [args, patterns] of cases) {
        const cli = shelf([...args, '--content', 'content'])
        const exit = await exitOf(cli)
        assert.is(exit.code, 2, `shelf ${args.join(' ')}: ${cli.stderr()}`)
        for (const pattern of patterns)
            assert.match(cli.stderr(), pattern, `shelf ${args.join(' ')}`)
        assert.not.ok(
            cli.stdout.some((line) => line.startsWith('listening')),
            'it does not start',
        )
    }
})

test('serve prints the addresses sign-in accepts, and that rooms are on', async () => {
    const { cli, url } = await serve([
        '--content',
        'content',
        '--port',
        '0',
        '--multiplayer-url',
        'wss://rooms.test/play',
    ])
    const signIn = await cli.line(/^  sign-in accepts requests signed for (.+)$/)
    assert.equal(signIn[1]!.split(', '), [url])
    await cli.line(/^  multiplayer rooms on, played at wss:\/\/rooms\.test\/play$/)
    assert.is((await stop(cli)).code, 0)
})

test('a signature key file that is not a key stops the CLI with exit code 1 and says why', async () => {
    const keyFile = join(scratch, 'not-a-key.json')
    await writeFile(keyFile, '{"kty": "RSA"}')
    const cli = shelf([
        'serve',
        '--host',
        '127.0.0.1',
        '--port',
        '0',
        '--cache',
        cache,
        '--content',
        'content',
        '--signature-key',
        keyFile,
    ])
    const exit = await exitOf(cli)
    assert.is(exit.code, 1)
    assert.match(cli.stderr(), /--signature-key .*expected an EC P-256 key/)
})

test('--git on a folder outside any git work tree stops the CLI with exit code 1 and says what to do', async () => {
    const folder = join(scratch, 'not-in-git')
    await mkdir(folder, { recursive: true })
    const cli = shelf(['serve', '--content', folder, '--port', '0', '--git'])
    const exit = await exitOf(cli)
    assert.is(exit.code, 1, cli.stderr())
    assert.match(
        cli.stderr(),
        /--git needs the content folder .*not-in-git to be inside a git work tree, and it is not: run "git init"/,
    )
})

test('a content folder that does not exist stops the CLI with exit code 1 and names the folder', async () => {
    const missing = join(scratch, 'no-such-folder')
    const cli = shelf(['serve', '--content', missing, '--port', '0'])
    const exit = await exitOf(cli)
    assert.is(exit.code, 1, cli.stderr())
    assert.match(cli.stderr(), /content folder/)
    assert.ok(cli.stderr().includes(missing), cli.stderr())
    assert.not.ok(
        cli.stdout.some((line) => line.startsWith('listening')),
        'it does not start',
    )
    assert.not.ok(await exists(missing), 'the folder is not created')
})

test.run()
