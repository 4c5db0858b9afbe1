/**
 * Shelf added to one's own repository, as the README shows: `npm pack`, the tarball installed
 * into an empty folder, then `npx shelf init`, `npx shelf serve` (its answers crawled over HTTP)
 * and `npx shelf check`; and `init` refusing a folder that is not empty.
 */
import type {
    LevelData,
    LevelItem,
    ServerInfo,
    ServerItemDetails,
    ServerItemList,
} from '@sonolus/core'
import { execFile, spawn } from 'node:child_process'
import { mkdir, readdir, readFile, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { gunzipSync } from 'node:zlib'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { getBytes } from './support/fixtures.js'
import { getJson, temporaryFolder } from './support/server.js'

const repository = fileURLToPath(new URL('..', import.meta.url))
const run = promisify(execFile)
/** Generous: packing compiles the project and installing unpacks its dependencies, on a shared machine. */
const deadline = 300_000

let scratch: string
let project: string

const env = () => {
    const environment: NodeJS.ProcessEnv = { ...process.env }
    delete environment.PORT
    // npm run by this suite (npm test) would hand its own settings down to the child npm.
    for (const name of Object.keys(environment))
        if (name.startsWith('npm_')) delete environment[name]
    return environment
}

const npx = (args: string[]) =>
    run('npx', ['--no-install', ...args], { cwd: project, env: env(), timeout: deadline }).then(
        (result) => ({ code: 0, ...result }),
        (error: { code: number; stdout: string; stderr: string }) => error,
    )

test.before(async () => {
    scratch = await temporaryFolder('shelf-packed-')
    project = join(scratch, 'my-content-repo')
    const packed = join(scratch, 'packed')
    await mkdir(packed)
    await run('npm', ['pack', '--silent', '--pack-destination', packed], {
        cwd: repository,
        env: env(),
        timeout: deadline,
    })
    const [tarball] = await readdir(packed)
    assert.match(tarball ?? '', /^sonolus-shelf-.*\.tgz$/)
    await mkdir(project)
    await run(
        'npm',
        ['install', '--prefer-offline', '--no-audit', '--no-fund', join(packed, tarball!)],
        { cwd: project, env: env(), timeout: deadline },
    )
})

test.after(async () => {
    await rm(scratch, { recursive: true, force: true })
})

test('npx shelf init makes ./content, which npx shelf serve serves and npx shelf check passes', async () => {
    const made = await npx(['shelf', 'init'])
    assert.is(made.code, 0, made.stderr)
    assert.match(made.stdout, /made a content folder in content\//)
    const ignore = await readFile(join(project, 'content/.gitignore'), 'utf8')
    assert.match(ignore, /^\.shelf\/$/m)
    const level = await readFile(join(project, 'content/levels/my-first-level/item.yaml'), 'utf8')
    assert.match(
        level,
        /^# yaml-language-server: \$schema=\.\.\/\.\.\/\.\.\/node_modules\/sonolus-shelf\/schemas\/level\.schema\.json$/m,
        'the editor finds the schema in the installed package',
    )
    assert.ok(
        (await readdir(join(project, 'content/levels/my-first-level'))).every(
            (name) => !['comments', 'leaderboards'].includes(name),
        ),
        'the example level’s comments and leaderboards are not copied',
    )

    await serveAndCrawl()

    const checked = await npx(['shelf', 'check'])
    assert.is(checked.code, 0, `${checked.stdout}\n${checked.stderr}`)
    assert.match(checked.stdout, /no problems in \.\/content/)
})

/** `npx shelf serve` in its own process group, asked a few answers, then stopped. */
const serveAndCrawl = async () => {
    const child = spawn(
        'npx',
        ['--no-install', 'shelf', 'serve', '--port', '0', '--host', '127.0.0.1'],
        {
            cwd: project,
            env: env(),
            detached: true,
            stdio: ['ignore', 'pipe', 'pipe'],
        },
    )
    let stderr = ''
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
    const lines: string[] = []
    const exited = new Promise((resolve) => child.once('exit', resolve))
    try {
        const url = await new Promise<string>((resolve, reject) => {
            const timer = setTimeout(
                () => reject(new Error(`no listening line:\n${lines.join('\n')}\n${stderr}`)),
                deadline,
            )
            createInterface({ input: child.stdout }).on('line', (line) => {
                lines.push(line)
                const match = /listening on (\S+)/.exec(line)
                if (match) {
                    clearTimeout(timer)
                    resolve(match[1]!)
                }
            })
            child.once('exit', () =>
                reject(new Error(`serve ended:\n${lines.join('\n')}\n${stderr}`)),
            )
        })
        const root = `${url}/sonolus`
        const info = await getJson<ServerInfo>(`${root}/info`)
        assert.is(info.status, 200)
        assert.is(info.body.title, 'My Sonolus server')
        const list = await getJson<ServerItemList<LevelItem>>(`${root}/levels/list`)
        assert.is(list.status, 200)
        assert.equal(
            list.body.items.map((item) => item.name),
            ['my-first-level'],
        )
        const details = await getJson<ServerItemDetails<LevelItem>>(`${root}/levels/my-first-level`)
        assert.is(details.status, 200)
        assert.is(details.body.item.title, 'My first level')
        const cover = await getBytes(new URL(details.body.item.cover.url!, url).href)
        assert.is(cover.status, 200, 'the cover is served')
        const data = await getBytes(new URL(details.body.item.data.url!, url).href)
        assert.is(data.status, 200, 'the chart is converted by the engine package Shelf installed')
        assert.ok(
            (JSON.parse(gunzipSync(data.bytes).toString()) as LevelData).entities.length > 10,
            'the converted chart holds its notes',
        )
        const page = await fetch(`${url}/levels/my-first-level`)
        assert.is(page.status, 200, 'the web page is served')
    } finally {
        process.kill(-child.pid!, 'SIGTERM')
        await exited
    }
}

test('npx shelf init refuses a folder that is not empty, and touches nothing', async () => {
    const before = await readdir(join(project, 'content'))
    const refused = await npx(['shelf', 'init', 'content'])
    assert.is(refused.code, 1)
    assert.match(refused.stderr, /content is not empty .*never writes over files/)
    assert.equal(await readdir(join(project, 'content')), before)
})

test('npx shelf init DIR fills an empty folder', async () => {
    await mkdir(join(project, 'nested/site'), { recursive: true })
    const made = await npx(['shelf', 'init', 'nested/site'])
    assert.is(made.code, 0, made.stderr)
    assert.match(made.stdout, /npx shelf serve --content nested\/site/)
    const checked = await npx(['shelf', 'check', 'nested/site'])
    assert.is(checked.code, 0, `${checked.stdout}\n${checked.stderr}`)
})

test.run()
