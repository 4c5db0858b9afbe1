/**
 * The state folder protects itself: Shelf writes `.shelf/.gitignore` (`*`) into it, so `git add
 * -A` in the content repository never publishes the session secret, and a secret that git
 * already tracks is a start-up warning naming the fix.
 */
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { startShelf } from '../src/server.js'
import { git } from './support/git-repos.js'
import { copyContent } from './support/server.js'

/** A served copy of the example in a fresh git repository, its state folder the default one. */
const serveRepository = async (prepare: (content: string) => Promise<void> = async () => {}) => {
    const content = await copyContent()
    await git(content, 'init', '--quiet', '--initial-branch=main')
    await prepare(content)
    const shelf = await startShelf(
        { content, name: 'service', drafts: false },
        { port: 0, host: '127.0.0.1' },
    )
    return {
        content,
        shelf,
        stop: async () => {
            await shelf.close()
            await rm(content, { recursive: true, force: true })
        },
    }
}

test('a start writes .shelf/.gitignore, and git then sees nothing of the state folder', async () => {
    const { content, shelf, stop } = await serveRepository()
    try {
        const ignore = await readFile(join(content, '.shelf/.gitignore'), 'utf8')
        assert.ok(ignore.split('\n').includes('*'), ignore)
        await readFile(join(content, '.shelf/.session-secret'), 'utf8')
        const status = await git(content, 'status', '--porcelain', '--untracked-files=all')
        assert.not.match(status, /\.shelf/, status)
        await git(content, 'add', '-A')
        const staged = await git(content, 'diff', '--cached', '--name-only')
        assert.not.match(staged, /session-secret/, 'git add -A leaves the secret out')
        assert.equal(shelf.warnings, [], 'nothing to warn about')
    } finally {
        await stop()
    }
})

test('a session secret that git tracks is a start-up warning naming the fix', async () => {
    const { shelf, stop } = await serveRepository(async (content) => {
        await mkdir(join(content, '.shelf'))
        await writeFile(join(content, '.shelf/.session-secret'), `${'s'.repeat(64)}\n`)
        await git(content, 'add', '-f', '.shelf/.session-secret')
        await git(content, 'commit', '--quiet', '-m', 'oops')
    })
    try {
        assert.is(shelf.warnings.length, 1, JSON.stringify(shelf.warnings))
        const [warning] = shelf.warnings as [string]
        assert.match(warning, /git tracks the session secret .*\.shelf\/\.session-secret/)
        assert.match(warning, /git rm --cached .*\.shelf\/\.session-secret/)
        assert.match(warning, /delete the file/)
    } finally {
        await stop()
    }
})

test.run()
