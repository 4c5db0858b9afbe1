/**
 * --git on a real clone of a bare remote: every kind of player write is one commit with the
 * player as author and exactly its files; the owner's staged and unstaged changes survive; a
 * revert by the owner takes a comment off the list; fifty writes at once are fifty commits; a
 * commit that fails is reported once and the write stays; a push from elsewhere is served after
 * a signed webhook and not after a forged one; a conflict keeps both sides.
 */
import type { PostItem, ServerItemCommunityComment } from '@sonolus/core'
import { existsSync } from 'node:fs'
import { cp, readFile, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import type { ShelfOptions } from '../src/config.js'
import { playerEmailDomain } from '../src/git/identity.js'
import { signWebhookBody } from '../src/git/webhook-signature.js'
import { eventually } from './support/eventually.js'
import { sha1, tinyPng } from './support/fixtures.js'
import {
    commitAt,
    commitCount,
    git,
    pushFile,
    seededRemote,
    type Remote,
} from './support/git-repos.js'
import { gzipJson, levelDataHash, perfectResult, replayDataOf } from './support/plays.js'
import { signInPlayer, type Player } from './support/player.js'
import { createTestSigner, type TestSigner } from './support/signing.js'
import {
    copyContent,
    exampleContent,
    getJson,
    startTestServer,
    temporaryFolder,
    type TestServer,
} from './support/server.js'

const test = suite('git: player writes as commits')
const webhookSecret = 'a webhook secret the git host also knows'
let signer: TestSigner
let remote: Remote
let clone: string
let server: TestServer
let alice: Player
let bob: Player
let ownerStaged: string
let ownerUnstaged: string

const start = (
    content: string,
    git: ShelfOptions['git'] = { push: true, pull: { everyMs: 3_600_000, webhookSecret } },
) =>
    startTestServer({
        content,
        watch: true,
        git,
        signIn: {
            signatureKey: signer.publicKeyFile,
            sessionSecret: 'a secret shared by every test server here',
        },
    })

const commentsOf = async (item: string) =>
    (
        await getJson<{ comments: ServerItemCommunityComment[] }>(
            `${server.root}/levels/${item}/community/comments/list`,
        )
    ).body.comments

const problems = async () =>
    (
        await getJson<{ problems: { file: string; message: string }[] }>(
            `${server.url}/_shelf/problems`,
        )
    ).body.problems

/** What the owner changed and did not commit, as git sees it now. */
const ownerChanges = async () => ({
    staged: await git(clone, 'diff', '--cached'),
    unstaged: await git(clone, 'diff'),
    untracked: await git(clone, 'ls-files', '--others', '--exclude-standard'),
})

test.before(async () => {
    signer = await createTestSigner()
    const source = await copyContent()
    const serverYaml = join(source, 'server.yaml')
    await writeFile(
        serverYaml,
        (await readFile(serverYaml, 'utf8')).replace('admins: []', 'admins: [bob-id]'),
    )
    remote = await seededRemote(source)
    await rm(source, { recursive: true, force: true })
    clone = await remote.clone()
    server = await start(clone)
    alice = await signInPlayer(() => server, signer, 'alice-id', 'Alice')
    bob = await signInPlayer(() => server, signer, 'bob-id', 'Bob')
})

test.after(async () => {
    await server?.stop()
    await remote?.remove()
})

test('--git is refused outside a git work tree, without git, and --git-pull without an upstream', async () => {
    const plain = await copyContent()
    try {
        const error = await start(plain, { push: false }).then(
            () => undefined,
            (failure: Error) => failure,
        )
        assert.match(
            String(error?.message),
            /--git needs the content folder .* to be inside a git work tree, and it is not: run "git init"/,
        )
        const path = process.env.PATH
        process.env.PATH = '/nowhere'
        const missing = await start(clone, { push: false })
            .then(
                () => undefined,
                (failure: Error) => failure,
            )
            .finally(() => (process.env.PATH = path))
        assert.match(
            String(missing?.message),
            /need the git command, and none was found on the PATH: install git 2\.32 or newer/,
        )
        await git(plain, 'init', '--quiet', '--initial-branch=main')
        const lonely = await start(plain, { push: true }).then(
            () => undefined,
            (failure: Error) => failure,
        )
        assert.match(
            String(lonely?.message),
            /upstream of branch "main", and it has none: set one with "git branch --set-upstream-to=origin\/main"/,
        )
    } finally {
        await rm(plain, { recursive: true, force: true })
    }
})

test('the owner stages one change and leaves another unstaged, before any player writes', async () => {
    await writeFile(
        join(clone, 'levels/first-steps/item.md'),
        `${await readFile(join(clone, 'levels/first-steps/item.md'), 'utf8')}# staged by the owner\n`,
    )
    await git(clone, 'add', 'levels/first-steps/item.md')
    await writeFile(
        join(clone, 'levels/city-lights/item.yaml'),
        `${await readFile(join(clone, 'levels/city-lights/item.yaml'), 'utf8')}# not staged yet\n`,
    )
    await writeFile(join(clone, 'owner-notes.txt'), 'untracked notes\n')
    const changes = await ownerChanges()
    assert.match(changes.staged, /\+# staged by the owner/)
    assert.match(changes.unstaged, /\+# not staged yet/)
    ownerStaged = changes.staged
    ownerUnstaged = changes.unstaged
})

/** The last commit is one player write: author, committer, message and exactly these changes. */
const assertWriteCommit = async (
    player: string,
    id: string,
    subject: string | RegExp,
    changes: string[],
) => {
    const commit = await commitAt(clone)
    assert.is(commit.author, player)
    assert.is(commit.email, `${id}@${playerEmailDomain}`)
    assert.match(commit.committer!, /^Shelf on /)
    if (typeof subject === 'string') assert.is(commit.subject, subject)
    else assert.match(commit.subject!, subject)
    assert.equal(commit.changes.sort(), changes.sort())
    // The owner's work is untouched by every write.
    assert.equal(await ownerChanges(), {
        staged: ownerStaged,
        unstaged: ownerUnstaged,
        untracked: 'owner-notes.txt',
    })
}

let postName: string
let commentName: string

test('create, comment, edit, result, delete: each one commit by the player with exactly its files', async () => {
    let count = await commitCount(clone)
    const thumbnail = tinyPng(9, 9, 9)
    const submit = await alice.submit('/posts/create', {
        type: 'post',
        title: 'Committed post',
        thumbnail: sha1(thumbnail),
    })
    assert.is(submit.status, 200, submit.body.message)
    assert.is(await commitCount(clone), count, 'nothing is committed before the files arrive')
    const upload = await alice.upload('/posts/upload', submit.body.key, [thumbnail])
    assert.is(upload.status, 200, upload.body.message)
    postName = String(upload.body.shouldNavigateToItem)
    assert.is(await commitCount(clone), ++count)
    await assertWriteCommit('Alice#1000', 'alice-id', `Alice#1000 created posts/${postName}`, [
        `A posts/${postName}/item.yaml`,
        `A posts/${postName}/thumbnail.png`,
    ])

    const comment = await alice.submit('/levels/first-steps/community/submit', {
        type: 'comment',
        content: 'Committed comment',
    })
    assert.is(comment.status, 200, comment.body.message)
    commentName = (await commentsOf('first-steps')).find(
        (entry) => entry.content === 'Committed comment',
    )!.name
    assert.is(await commitCount(clone), ++count)
    await assertWriteCommit(
        'Alice#1000',
        'alice-id',
        'Alice#1000 commented on levels/first-steps',
        [`A levels/first-steps/comments/${commentName}.md`],
    )

    const edit = await alice.submit(`/posts/${postName}/submit`, {
        type: 'edit',
        title: 'Committed post, edited',
    })
    assert.is(edit.status, 200, edit.body.message)
    assert.is(await commitCount(clone), ++count)
    await assertWriteCommit('Alice#1000', 'alice-id', `Alice#1000 edited posts/${postName}`, [
        `M posts/${postName}/item.yaml`,
    ])

    const data = gzipJson(replayDataOf(perfectResult))
    const configuration = gzipSync(Buffer.from(JSON.stringify({ options: [] })))
    const replay = {
        title: 'Clear',
        level: { name: 'first-steps', data: { hash: await levelDataHash(server, 'first-steps') } },
        data: { hash: sha1(data) },
        configuration: { hash: sha1(configuration) },
    }
    const result = await alice.submit('/levels/result/submit', { type: 'replay' }, { replay })
    assert.is(result.status, 200, result.body.message)
    assert.is(
        (await alice.upload('/levels/result/upload', result.body.key, [data, configuration]))
            .status,
        200,
    )
    const replayCommit = await commitAt(clone)
    const replayName = /as replays\/(\S+)$/.exec(replayCommit.subject!)?.[1]
    assert.is(await commitCount(clone), ++count)
    await assertWriteCommit(
        'Alice#1000',
        'alice-id',
        `Alice#1000 recorded a replay of levels/first-steps as replays/${replayName}`,
        [
            `A replays/${replayName}/item.yaml`,
            `A replays/${replayName}/data`,
            `A replays/${replayName}/configuration`,
        ],
    )

    const moderated = await bob.submit(
        `/levels/first-steps/community/comments/${commentName}/submit`,
        { type: 'delete' },
    )
    assert.is(moderated.status, 200, moderated.body.message)
    assert.is(await commitCount(clone), ++count)
    await assertWriteCommit(
        'Bob#1000',
        'bob-id',
        "Bob#1000 deleted Alice#1000's comment on levels/first-steps",
        [`D levels/first-steps/comments/${commentName}.md`],
    )

    const removed = await alice.submit(`/posts/${postName}/submit`, { type: 'delete' })
    assert.is(removed.status, 200, removed.body.message)
    assert.is(await commitCount(clone), count + 1)
    await assertWriteCommit('Alice#1000', 'alice-id', `Alice#1000 deleted posts/${postName}`, [
        `D posts/${postName}/item.yaml`,
        `D posts/${postName}/thumbnail.png`,
    ])
})

test('a write that is undone before its answer makes no commit', async () => {
    const count = await commitCount(clone)
    const refused = await alice.submit('/levels/create', {
        type: 'level',
        title: 'No files',
        cover: sha1(tinyPng(1, 1, 1)),
        bgm: sha1(Buffer.from('x')),
        data: sha1(Buffer.from('y')),
    })
    assert.is(refused.status, 200)
    assert.is(
        (
            await alice.upload('/levels/upload', refused.body.key, [
                tinyPng(1, 1, 1),
                Buffer.from('x'),
                Buffer.from('y'),
            ])
        ).status,
        400,
    )
    assert.is(await commitCount(clone), count)
})

test('the owner reverts a comment: the watcher reloads and it leaves the served list', async () => {
    const posted = await alice.submit('/levels/city-lights/community/submit', {
        type: 'comment',
        content: 'Spam, spam, spam',
    })
    assert.is(posted.status, 200, posted.body.message)
    assert.ok(
        (await commentsOf('city-lights')).some((comment) => comment.content === 'Spam, spam, spam'),
    )
    const spam = await git(
        clone,
        'log',
        '-1',
        '--format=%H',
        `--author=alice-id@${playerEmailDomain}`,
        '--grep=commented on levels/city-lights',
    )
    // git revert wants a clean index, so the owner puts their own work aside for it.
    await git(clone, 'stash', '--quiet')
    await git(clone, 'revert', '--no-edit', spam)
    await git(clone, 'stash', 'pop', '--quiet', '--index')
    await eventually(
        'the reverted comment is gone from the list',
        async () =>
            !(await commentsOf('city-lights')).some(
                (comment) => comment.content === 'Spam, spam, spam',
            ),
    )
})

test('fifty comments at once: fifty commits, fifty comments, and no lock left behind', async () => {
    const before = await commitCount(clone)
    const answers = await Promise.allSettled(
        Array.from({ length: 50 }, (_, index) =>
            alice.submit('/levels/morning-dew/community/submit', {
                type: 'comment',
                content: `burst ${index}`,
            }),
        ),
    )
    // Even when an answer failed, the server finishes every write before the next test locks the branch.
    await eventually('fifty commits', async () => (await commitCount(clone)) === before + 50)
    assert.equal(
        answers.map((answer) =>
            answer.status === 'fulfilled' ? answer.value.status : String(answer.reason),
        ),
        Array(50).fill(200),
    )
    const subjects = (await git(clone, 'log', '-50', '--format=%s')).split('\n')
    assert.equal(new Set(subjects), new Set(['Alice#1000 commented on levels/morning-dew']))
    const files = (await git(clone, 'log', '-50', '--format=', '--name-only'))
        .split('\n')
        .filter(Boolean)
    assert.is(new Set(files).size, 50, 'each commit holds its own comment')
    const listed = await getJson<{ pageCount: number }>(
        `${server.root}/levels/morning-dew/community/comments/list`,
    )
    assert.is(listed.body.pageCount, 5)
    const gitDir = join(clone, '.git')
    for (const lock of ['index.lock', 'shelf-index.lock', 'HEAD.lock', 'refs/heads/main.lock'])
        assert.not.ok(existsSync(join(gitDir, lock)), `${lock} is gone`)
})

test('a commit that fails is reported once; the write stays on disk and served; the next write commits alone', async () => {
    const lock = join(clone, '.git/refs/heads/main.lock')
    await writeFile(lock, '')
    const logged: string[] = []
    const error = console.error
    console.error = (...parts: unknown[]) => logged.push(parts.join(' '))
    let name: string
    try {
        const count = await commitCount(clone)
        const answer = await alice.submit('/levels/first-steps/community/submit', {
            type: 'comment',
            content: 'Written, not committed',
        })
        assert.is(answer.status, 200, answer.body.message)
        name = (await commentsOf('first-steps')).find(
            (comment) => comment.content === 'Written, not committed',
        )!.name
        assert.ok(existsSync(join(clone, `levels/first-steps/comments/${name}.md`)))
        assert.is(await commitCount(clone), count)
        assert.is(
            logged.filter((line) => line.includes('could not be committed')).length,
            1,
            logged.join('\n'),
        )
        const reported = (await problems()).filter((problem) =>
            problem.message.includes('could not be committed'),
        )
        assert.is(reported.length, 1)
        assert.match(
            reported[0]!.message,
            /Alice#1000 commented on levels\/first-steps" is on disk and served/,
        )
    } finally {
        console.error = error
        await rm(lock, { force: true })
    }
    const next = await alice.submit('/levels/first-steps/community/submit', {
        type: 'comment',
        content: 'Committed again',
    })
    assert.is(next.status, 200)
    const commit = await commitAt(clone)
    assert.is(commit.changes.length, 1)
    assert.not.ok(
        commit.changes[0]!.includes(name!),
        'the failed write is not swept into the next commit',
    )
    assert.match(
        await git(clone, 'status', '--porcelain'),
        new RegExp(`\\?\\? levels/first-steps/comments/${name!}\\.md`),
    )
    // The owner commits it as the problem says, leaving their own staged change out.
    await git(clone, 'add', `levels/first-steps/comments/${name!}.md`)
    await git(
        clone,
        'commit',
        '--quiet',
        '-m',
        'The comment Shelf could not commit',
        '--',
        `levels/first-steps/comments/${name!}.md`,
    )
    assert.equal(await ownerChanges(), {
        staged: ownerStaged,
        unstaged: ownerUnstaged,
        untracked: 'owner-notes.txt',
    })
})

/** The webhook as a git host sends it: a JSON push event, signed with `secret`. */
const sendWebhook = (
    secret: string | undefined,
    body = JSON.stringify({ ref: 'refs/heads/main' }),
) =>
    fetch(`${server.url}/_shelf/git/webhook`, {
        method: 'POST',
        headers: {
            'Content-Type': 'application/json',
            'X-GitHub-Event': 'push',
            ...(secret ? { 'X-Hub-Signature-256': signWebhookBody(secret, body) } : {}),
        },
        body,
    })

const postTitles = async () =>
    (await getJson<{ items: PostItem[] }>(`${server.root}/posts/list`)).body.items.map(
        (item) => item.title,
    )

test('a push from another clone is served after a signed webhook, not after a forged or unsigned one', async () => {
    await pushFile(
        await remote.clone(),
        'posts/from-elsewhere.md',
        '---\ntitle: Pushed from elsewhere\ntime: 2026-02-01T00:00:00Z\n---\nHello.\n',
        'A post written elsewhere',
    )

    const warned: string[] = []
    const warn = console.warn
    console.warn = (...parts: unknown[]) => warned.push(parts.join(' '))
    try {
        const forged = await sendWebhook('not the secret')
        assert.is(forged.status, 401)
        assert.match(
            ((await forged.json()) as { message: string }).message,
            /signature does not match/,
        )
        const unsigned = await sendWebhook(undefined)
        assert.is(unsigned.status, 401)
        assert.match(
            ((await unsigned.json()) as { message: string }).message,
            /no signature header/,
        )
    } finally {
        console.warn = warn
    }
    assert.is(
        warned.filter((line) => line.includes('git webhook refused')).length,
        2,
        'each refusal is logged',
    )
    assert.not.ok((await postTitles()).includes('Pushed from elsewhere'))

    const signed = await sendWebhook(webhookSecret)
    assert.is(signed.status, 200)
    const outcome = (await signed.json()) as { changed: string[] }
    assert.ok(outcome.changed.includes('posts/from-elsewhere.md'), JSON.stringify(outcome))
    assert.ok(
        (await postTitles()).includes('Pushed from elsewhere'),
        'served when the answer comes',
    )
    // The owner's own changes rode through the pull.
    assert.equal(await ownerChanges(), {
        staged: ownerStaged,
        unstaged: ownerUnstaged,
        untracked: 'owner-notes.txt',
    })
})

test("a conflict keeps both sides: the remote is served, the player's edit waits on its own branch, serving goes on", async () => {
    const created = await alice.submit('/posts/create', { type: 'post', title: 'Contested' })
    assert.is(created.status, 200, created.body.message)
    const name = String(created.body.shouldNavigateToItem)
    const other = await remote.clone()
    await eventually(
        'the new post reaches the remote',
        async () =>
            await git(other, 'pull', '--quiet').then(() =>
                existsSync(join(other, `posts/${name}/item.yaml`)),
            ),
    )
    const file = `posts/${name}/item.yaml`
    await writeFile(
        join(other, file),
        (await readFile(join(other, file), 'utf8')).replace(
            'title: Contested',
            'title: Renamed by the owner',
        ),
    )
    await git(other, 'commit', '--quiet', '-am', 'The owner renames the post')
    await git(other, 'push', '--quiet')

    // The player's edit of the same line is committed here; its push is refused, the pull replays it, and it conflicts.
    const logged: string[] = []
    const error = console.error
    console.error = (...parts: unknown[]) => logged.push(parts.join(' '))
    try {
        const edit = await alice.submit(`/posts/${name}/submit`, {
            type: 'edit',
            title: 'Renamed by Alice',
        })
        assert.is(edit.status, 200, edit.body.message)
        await eventually('the conflict is reported', async () =>
            (await problems()).some(
                (problem) =>
                    problem.file === file && problem.message.includes('conflicts with origin/main'),
            ),
        )
        await sendWebhook(webhookSecret)
    } finally {
        console.error = error
    }
    assert.is(
        logged.filter((line) => line.includes('conflicts with origin/main')).length,
        1,
        `logged once, not again at the next pull: ${logged.join('\n')}`,
    )
    const problem = (await problems()).find((entry) => entry.file === file)!
    const branch = /kept on branch (\S+)/.exec(problem.message)![1]!
    assert.match(branch, /^shelf\/conflict\/[0-9a-f]{12}$/)
    assert.match(problem.message, new RegExp(`"Alice#1000 edited posts/${name}"`))
    assert.match(await git(clone, 'show', `${branch}:${file}`), /title: Renamed by Alice/)
    assert.match(await readFile(join(clone, file), 'utf8'), /title: Renamed by the owner/)
    assert.ok((await postTitles()).includes('Renamed by the owner'), 'the remote side is served')
    await eventually(
        'the branch reaches the remote side too',
        async () =>
            (await git(remote.bare, 'rev-parse', 'main')) ===
            (await git(clone, 'rev-parse', 'HEAD')),
    )
    assert.is((await getJson(`${server.root}/info`)).status, 200, 'serving goes on')
})

test("a content folder below the top of the repository: paths in commits and pulls are the repository's", async () => {
    const source = await temporaryFolder('shelf-site-')
    await cp(exampleContent, join(source, 'content'), {
        recursive: true,
        filter: (path) => !path.includes('/.shelf'),
    })
    await writeFile(join(source, 'README.md'), 'The site, with its content folder inside.\n')
    const site = await seededRemote(source)
    await rm(source, { recursive: true, force: true })
    const top = await site.clone()
    const nested = await start(join(top, 'content'))
    try {
        const carol = await signInPlayer(nested, signer, 'carol-id', 'Carol')
        assert.is(
            (
                await carol.submit('/levels/night-drive/community/submit', {
                    type: 'comment',
                    content: 'From below the top',
                })
            ).status,
            200,
        )
        const commit = await commitAt(top)
        assert.is(commit.subject, 'Carol#1000 commented on levels/night-drive')
        assert.match(commit.changes[0]!, /^A content\/levels\/night-drive\/comments\/[^/]+\.md$/)
        assert.is(await git(top, 'status', '--porcelain'), '')

        await pushFile(
            await site.clone(),
            'content/posts/nested.md',
            '---\ntitle: Pushed below the top\ntime: 2026-02-02T00:00:00Z\n---\n',
            'A post in the content folder',
        )
        const body = '{}'
        const pulled = await fetch(`${nested.url}/_shelf/git/webhook`, {
            method: 'POST',
            headers: { 'X-Hub-Signature-256': signWebhookBody(webhookSecret, body) },
            body,
        })
        assert.is(pulled.status, 200)
        assert.equal(((await pulled.json()) as { changed: string[] }).changed, ['posts/nested.md'])
        const titles = (
            await getJson<{ items: PostItem[] }>(`${nested.root}/posts/list`)
        ).body.items.map((item) => item.title)
        assert.ok(titles.includes('Pushed below the top'))
    } finally {
        await nested.stop()
        await site.remove()
    }
})

test.run()
