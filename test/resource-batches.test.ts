/**
 * Resource files asked for together are shared between a worker thread and the main thread
 * (content/resource-batches.ts): whichever thread makes a file, the bytes and hash are those the
 * main thread makes alone, and a broken or missing file fails as it would there. A long chart is
 * the worker's alone while the main thread takes the small files waiting behind it.
 */
import { statSync } from 'node:fs'
import { mkdir, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { ContentError } from '../src/content/problems.js'
import { ResourceBatches } from '../src/content/resource-batches.js'
import { type FileWork, type WorkDone, workOn } from '../src/content/resource-work.js'
import { temporaryFolder } from './support/server.js'

/** A chart of `notes` entities, minified as sonolus-pack writes it. */
const chart = (notes: number) =>
    JSON.stringify({
        bgmOffset: 0,
        entities: Array.from({ length: notes }, (_, index) => ({
            archetype: 'NormalTapNote',
            data: [
                { name: '#BEAT', value: index / 4 },
                { name: 'lane', value: (index % 7) - 3 },
            ],
        })),
    })

type Asked = { work: FileWork; size: number }

/** Small charts and binaries, one long chart (well past a batch the main thread may take), a broken chart and a missing file. */
const writeFiles = async (folder: string): Promise<Asked[]> => {
    await mkdir(folder, { recursive: true })
    const asked: Asked[] = []
    const add = async (name: string, bytes: string | Buffer, making: FileWork['making']) => {
        const path = join(folder, name)
        await writeFile(path, bytes)
        asked.push({ work: { path, making }, size: Buffer.byteLength(bytes) })
    }
    for (let index = 0; index < 150; index++) {
        if (index === 20) await add('long.json', chart(20_000), 'json')
        if (index === 90) await add('broken.json', '{"entities": [}', 'json')
        await add(`chart-${index}.json`, chart(4 + (index % 13)), 'json')
        await add(`cover-${index}.bin`, Buffer.alloc(200 + index, index), 'gzip')
        await add(`bgm-${index}.mp3`, Buffer.alloc(400 + index, 255 - index), 'none')
    }
    asked.push({ work: { path: join(folder, 'missing.json'), making: 'json' }, size: 100 })
    return asked
}

/** What the main thread alone makes of a file, or the error it throws. */
const alone = (work: FileWork): WorkDone | Error => {
    try {
        return workOn(work)
    } catch (error) {
        return error as Error
    }
}

const settle = (done: Promise<WorkDone>) => done.catch((error: Error) => error)

const assertAsAlone = (asked: Asked[], answers: (WorkDone | Error)[]) => {
    asked.forEach(({ work }, index) => {
        const expected = alone(work)
        const answer = answers[index]!
        if (expected instanceof Error) {
            assert.ok(answer instanceof Error, `${work.path} fails`)
            assert.is(answer.message, expected.message, `${work.path}: same message`)
            assert.is(answer instanceof ContentError, expected instanceof ContentError)
            assert.is(
                (answer as NodeJS.ErrnoException).code,
                (expected as NodeJS.ErrnoException).code,
            )
            return
        }
        assert.ok(!(answer instanceof Error), `${work.path}: ${String(answer)}`)
        assert.is(answer.hash, expected.hash, `${work.path}: same hash`)
        assert.is(answer.made === undefined, expected.made === undefined)
        if (expected.made) assert.ok(answer.made?.equals(expected.made), `${work.path}: same bytes`)
    })
}

/** The files of `writeFiles` in a temporary folder, asked of fresh batches that are closed after. */
const withFiles = async (
    use: (
        asked: Asked[],
        batches: ResourceBatches,
        named: (name: string) => number,
    ) => Promise<void>,
) => {
    const folder = await temporaryFolder('shelf-batches-')
    const batches = new ResourceBatches()
    try {
        const asked = await writeFiles(folder)
        await use(asked, batches, (name) => asked.findIndex(({ work }) => work.path.endsWith(name)))
    } finally {
        await batches.close()
        await rm(folder, { recursive: true, force: true })
    }
}

const askAll = (asked: Asked[], batches: ResourceBatches) =>
    Promise.all(asked.map(({ work, size }) => settle(batches.work(work, size))))

test('files asked for together are made as the main thread makes them alone', () =>
    withFiles(async (asked, batches, named) => {
        const long = asked[named('long.json')]!
        assert.ok(long.size > 256 * 1024, `the long chart is ${long.size} bytes`)
        const answers = await askAll(asked, batches)
        assertAsAlone(asked, answers)
        assert.match(String(answers[named('broken.json')]), /^Error: invalid JSON: /)
    }))

test('closing while the worker holds files and others wait: each is still made, on the main thread', () =>
    withFiles(async (asked, batches, named) => {
        // The long chart alone is the worker's: once it is made, the worker takes batches.
        const long = asked[named('long.json')]!
        await batches.work(long.work, long.size)
        const answers = askAll(asked, batches)
        // The turn after they were asked for, the files before the long chart are the worker's.
        await new Promise((resolve) => setImmediate(resolve))
        await batches.close()
        assertAsAlone(asked, await answers)
    }))

test('files asked for without their size: the same bytes and hashes, and the stat of the file read', () =>
    withFiles(async (asked, batches, named) => {
        const answers = await Promise.all(asked.map(({ work }) => settle(batches.work(work))))
        assertAsAlone(asked, answers)
        asked.forEach(({ work }, index) => {
            const answer = answers[index]!
            if (answer instanceof Error) return
            const { size, mtimeMs } = statSync(work.path)
            assert.equal(answer.stat, { size, mtimeMs }, `${work.path}: its stat`)
        })
        // The long chart was found long in a batch of small files, and read on its own after.
        const long = answers[named('long.json')]!
        assert.ok(!(long instanceof Error) && long.made && long.stat.size > 256 * 1024)
    }))

test('a file larger than it is asked for up to comes back unread, with its stat', () =>
    withFiles(async (asked, batches, named) => {
        const { work } = asked[named('long.json')]!
        const upTo = 64 * 1024
        const many = asked.slice(0, 40).map(({ work }) => batches.work({ ...work, upTo }))
        const unread = await batches.work({ ...work, making: 'none', upTo })
        assert.is(unread.hash, undefined)
        assert.is(unread.made, undefined)
        assert.is(unread.stat.size, statSync(work.path).size)
        for (const done of await Promise.all(many)) assert.ok(done.hash && done.stat.size <= upTo)
    }))

test.run()
