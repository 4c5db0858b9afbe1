/**
 * Real git repositories for tests: a bare remote seeded with a content folder, and clones of it
 * in temporary folders, each with its own (test) owner identity.
 */
import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { cp, mkdir, readFile, rm, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { promisify } from 'node:util'
import { exampleContent, temporaryFolder } from './server.js'

const run = promisify(execFile)

/** The owner of a clone, as a person committing by hand would be. */
const ownerEnvironment = {
    GIT_AUTHOR_NAME: 'Owner',
    GIT_AUTHOR_EMAIL: 'owner@example.com',
    GIT_COMMITTER_NAME: 'Owner',
    GIT_COMMITTER_EMAIL: 'owner@example.com',
}

/** Runs git in `cwd` as the owner; stdout, trimmed. */
export const git = async (cwd: string, ...args: string[]) => {
    const env: NodeJS.ProcessEnv = { ...process.env, ...ownerEnvironment, LC_ALL: 'C' }
    delete env.GIT_DIR
    delete env.GIT_INDEX_FILE
    return (await run('git', args, { cwd, env, maxBuffer: 64 * 1024 * 1024 })).stdout.trim()
}

export type Remote = {
    /** The bare repository every clone pushes to. */
    bare: string
    /** A new clone of the remote's main branch, tracking it. */
    clone(): Promise<string>
    remove(): Promise<void>
}

/** These tests write in bursts (fifty comments at once): the write rates of server.yaml are raised for them. */
export const raiseWriteRates = async (content: string) => {
    const file = join(content, 'server.yaml')
    if (!existsSync(file)) return
    const rate = '{ perPlayer: 1000, perAddress: 1000, perSeconds: 60 }'
    await writeFile(
        file,
        (await readFile(file, 'utf8')).replace(
            /^limits:\n/m,
            `limits:\n  comments: ${rate}\n  creates: ${rate}\n  results: ${rate}\n`,
        ),
    )
}

/** A bare remote whose `main` holds `source` (the example content by default) in one commit. */
export const seededRemote = async (source = exampleContent): Promise<Remote> => {
    const folder = await temporaryFolder('shelf-git-')
    const bare = join(folder, 'remote.git')
    await git(folder, 'init', '--quiet', '--bare', '--initial-branch=main', bare)
    const seed = join(folder, 'seed')
    await cp(source, seed, { recursive: true, filter: (path) => !path.includes('/.shelf') })
    for (const content of [seed, join(seed, 'content')]) await raiseWriteRates(content)
    await git(seed, 'init', '--quiet', '--initial-branch=main')
    await git(seed, 'add', '--all')
    await git(seed, 'commit', '--quiet', '--message', 'The content folder')
    await git(seed, 'remote', 'add', 'origin', bare)
    await git(seed, 'push', '--quiet', '--set-upstream', 'origin', 'main')
    let clones = 0
    return {
        bare,
        clone: async () => {
            const clone = join(folder, `clone-${++clones}`)
            // Through git's transport, not a copy of the remote's files: a copy taken while a
            // server pushes meets the push's objects half moved ("failed to copy file").
            await git(folder, 'clone', '--quiet', '--no-local', bare, clone)
            return clone
        },
        remove: () => rm(folder, { recursive: true, force: true }),
    }
}

/** What someone else does on their own clone: writes one file, commits it, and pushes it. */
export const pushFile = async (clone: string, path: string, text: string, message: string) => {
    await mkdir(dirname(join(clone, path)), { recursive: true })
    await writeFile(join(clone, path), text)
    await git(clone, 'add', path)
    await git(clone, 'commit', '--quiet', '-m', message)
    // A server pushing its players' commits to the same remote may win the race: pull and try again.
    for (let attempt = 1; ; attempt++) {
        await git(clone, 'pull', '--quiet', '--rebase')
        const pushed = await git(clone, 'push', '--quiet').then(
            () => true,
            (error: unknown) => (attempt < 5 ? false : Promise.reject(error)),
        )
        if (pushed) return
    }
}

/** One commit: its author, committer, one-line message and the paths it changed (`A path`). */
export const commitAt = async (cwd: string, revision = 'HEAD') => {
    const [author, email, committer, subject] = (
        await git(cwd, 'show', '--no-patch', '--format=%an%x00%ae%x00%cn%x00%s', revision)
    ).split('\0')
    const changes = (
        await git(cwd, 'show', '--format=', '--name-status', '--no-renames', '--relative', revision)
    )
        .split('\n')
        .filter(Boolean)
        .map((line) => line.replace('\t', ' '))
    return { author, email, committer, subject, changes }
}

/** How many commits HEAD has. */
export const commitCount = async (cwd: string, revision = 'HEAD') =>
    Number(await git(cwd, 'rev-list', '--count', revision))
