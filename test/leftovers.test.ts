/**
 * A writer killed with `kill -9` in the middle of its writes leaves temporary files and staging
 * folders; the next start removes them (and old upload parts), keeps every write that finished,
 * and touches nothing else.
 */
import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdir, readdir, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { createTestSigner } from './support/signing.js'
import { copyContent, startTestServer, temporaryFolder } from './support/server.js'

const test = suite('leftovers of interrupted writes')
const repository = fileURLToPath(new URL('..', import.meta.url))

/** Runs the writer until it has finished a few writes and is in the middle of more, then kills it. */
const killMidWrite = (content: string) =>
    new Promise<string[]>((resolve, reject) => {
        const child = spawn(
            process.execPath,
            ['--import', 'tsx', 'test/support/interrupted-writer.ts', content],
            { cwd: repository, stdio: ['ignore', 'pipe', 'inherit'] },
        )
        const written: string[] = []
        let output = ''
        child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
            output += chunk
            const lines = output.split('\n')
            output = lines.pop()!
            for (const line of lines)
                if (line.startsWith('written ')) written.push(line.slice('written '.length))
            // Both loops have finished writes and started the next ones: kill in the middle of those.
            if (
                written.some((unit) => unit.includes('/comments/')) &&
                written.some((unit) => !unit.includes('/comments/'))
            )
                child.kill('SIGKILL')
        })
        child.once('error', reject)
        child.once('close', (_code, signal) =>
            signal === 'SIGKILL'
                ? resolve(written)
                : reject(new Error(`the writer ended by itself (${signal})`)),
        )
    })

/** Every name under the folder, relative, that a finished write never leaves. */
const leftoversIn = async (content: string) => {
    const entries = await readdir(content, { recursive: true })
    const found = entries.filter((path) =>
        /(^|\/)\.[^/]+\.[0-9a-f]{8}\.(tmp|deleted)$|\.[0-9a-f]{12}\.tmp$/.test(path),
    )
    return found.filter((path) => !found.some((other) => path.startsWith(`${other}/`)))
}

test('kill -9 in the middle of writes, then a start: leftovers removed, finished writes kept', async () => {
    const content = await copyContent()
    const cache = await temporaryFolder('shelf-leftovers-state-')
    try {
        const written = await killMidWrite(content)
        // Left as a crash leaves them, besides what the kill left: a trash folder, a temporary
        // file beside a record, and upload parts that never completed.
        await mkdir(join(content, 'levels', '.city-lights.0badc0de.deleted'), { recursive: true })
        await writeFile(
            join(content, 'levels', '.city-lights.0badc0de.deleted', 'item.yaml'),
            'title: gone\n',
        )
        await writeFile(
            join(content, 'levels', 'city-lights', 'item.yaml.0123456789ab.tmp'),
            'title: half',
        )
        await mkdir(join(cache, 'uploads', '0123456789abcdef'), { recursive: true })
        await writeFile(join(cache, 'uploads', '0123456789abcdef', 'part'), 'half an upload')
        // Saves of the state folder's caches cut short (the kill's own may be among them).
        await mkdir(join(cache, 'resources'), { recursive: true })
        await writeFile(join(cache, 'hashes.json.0123456789ab.tmp'), '{"half')
        await writeFile(join(cache, 'resources', `${'f'.repeat(40)}.0123456789ab.tmp`), 'half')
        // Hand-made files that look a little like leftovers are the owner's, and stay.
        await writeFile(join(content, 'levels', 'city-lights', 'notes.tmp'), 'mine')
        const before = await leftoversIn(content)
        assert.ok(
            before.length >= 2,
            `the kill and the crash left files behind: ${before.join(', ')}`,
        )

        const signer = await createTestSigner()
        const server = await startTestServer({
            content,
            cache,
            watch: true,
            signIn: { signatureKey: signer.publicKeyFile },
        })
        try {
            const removed = await server.leftovers
            assert.equal(await leftoversIn(content), [], 'nothing is left')
            assert.ok(removed.length >= before.length, `reported: ${removed.join(', ')}`)
            assert.equal(await readdir(join(cache, 'uploads')), [], 'old upload parts are removed')
            for (const folder of [cache, join(cache, 'resources')])
                assert.equal(
                    (await readdir(folder)).filter((name) => name.endsWith('.tmp')),
                    [],
                    `no temporary file is left in ${folder}`,
                )
            assert.ok(
                existsSync(join(content, 'levels', 'city-lights', 'notes.tmp')),
                'a file the writer never names is kept',
            )
            for (const unit of written)
                assert.ok(
                    existsSync(join(content, unit)),
                    `${unit} was finished before the kill and is kept`,
                )
            const posts = written
                .filter((unit) => !unit.includes('/comments/'))
                .map((unit) => unit.split('/')[1]!)
            for (const name of posts)
                assert.ok(server.catalog().get('post', name), `post ${name} is served`)
        } finally {
            await server.stop()
        }
    } finally {
        await rm(content, { recursive: true, force: true })
        await rm(cache, { recursive: true, force: true })
    }
})

test('a read-only server leaves the folder alone', async () => {
    const content = await copyContent()
    try {
        await writeFile(
            join(content, 'levels', 'city-lights', 'item.yaml.0123456789ab.tmp'),
            'title: half',
        )
        const server = await startTestServer({ content, readOnly: true })
        try {
            assert.equal(await server.leftovers, [])
            assert.ok(
                existsSync(join(content, 'levels', 'city-lights', 'item.yaml.0123456789ab.tmp')),
            )
        } finally {
            await server.stop()
        }
    } finally {
        await rm(content, { recursive: true, force: true })
    }
})

test.run()
