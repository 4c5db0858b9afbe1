/**
 * A first start reads, gzips and hashes resource files in batches on worker threads
 * (content/resource-batches.ts) when many are asked for at once: what it serves is what the
 * next start, which finds them all in its state folder, serves, byte for byte, and a broken
 * chart is the same problem whichever thread read it.
 */
import { compressSync, type LevelItem, type ServerItemDetails } from '@sonolus/core'
import { statSync } from 'node:fs'
import { readFile, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { gunzipSync } from 'node:zlib'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { generatePackTree } from '../bench/generate-pack-tree.js'
import type { Problem } from '../src/content/problems.js'
import { longFileBytes } from '../src/content/resource-work.js'
import { getBytes, sha1 } from './support/fixtures.js'
import { getJson, startTestServer, temporaryFolder } from './support/server.js'

/** Enough that the files asked for in one turn of the event loop go to a worker (32 or more). */
const levelCount = 200
const roles = ['cover', 'bgm', 'preview', 'data'] as const

/** Each level's resources as served: the hash its details give, and the SHA-1 of the bytes sent. */
const servedResources = async (root: string, levels: string[]) => {
    const served = new Map<string, { hash: string; bytes: Buffer }>()
    for (const level of levels) {
        const { status, body } = await getJson<ServerItemDetails<LevelItem>>(
            `${root}/levels/${level}`,
        )
        if (status !== 200) continue
        for (const role of roles) {
            const srl = body.item[role]
            assert.ok(srl?.hash && srl.url, `${level} ${role}: ${JSON.stringify(srl)}`)
            const response = await getBytes(`${root.slice(0, root.lastIndexOf('/'))}${srl.url}`)
            assert.is(response.status, 200, `${level} ${role}`)
            served.set(`${level}/${role}`, { hash: srl.hash, bytes: response.bytes })
        }
    }
    return served
}

/** Size and time of each resource file the hash cache holds (a header line, then an entry a line). */
const rememberedStats = async (file: string) => {
    const lines = (await readFile(file, 'utf8')).split('\n').slice(1).filter(Boolean)
    const entries = lines.map((line) => JSON.parse(line) as [string, number, number])
    return new Map(entries.map(([path, size, mtimeMs]) => [path, [size, mtimeMs]]))
}

const chartProblem = (problems: Problem[], file: string) =>
    problems.find((problem) => problem.file === file)

test('a cold start serves the same hashes and bytes as the warm start after it', async () => {
    const folder = await temporaryFolder('shelf-cold-')
    try {
        const tree = await generatePackTree(join(folder, 'tree'), { levels: levelCount, seed: 5 })
        const levels = tree.names.levels
        const broken = `levels/${levels[0]}/data.json`
        await writeFile(join(tree.dir, broken), '{\n    "bgmOffset": 0,\n    "entities": [}\n')
        const cache = join(folder, 'state')

        const cold = await startTestServer({ content: tree.dir, cache, watch: false })
        const coldProblem = chartProblem(cold.catalog().problems, broken)
        const coldServed = await servedResources(cold.root, levels)
        await cold.stop()

        // The hash cache keeps each file by the stat taken as it was read, which the warm start finds.
        const remembered = await rememberedStats(join(cache, 'hashes.json'))
        for (const level of levels.slice(1))
            for (const file of ['cover.png', 'bgm.mp3', 'preview.mp3', 'data.json']) {
                const path = join(tree.dir, 'levels', level, file)
                const { size, mtimeMs } = statSync(path)
                assert.equal(remembered.get(path), [size, mtimeMs], `${path} remembered`)
            }

        const warm = await startTestServer({ content: tree.dir, cache, watch: false })
        const warmProblem = chartProblem(warm.catalog().problems, broken)
        const warmServed = await servedResources(warm.root, levels)
        await warm.stop()

        // The broken chart, read again by the warm start on the main thread (a single file).
        assert.ok(coldProblem, `the broken chart is reported: ${JSON.stringify(coldProblem)}`)
        assert.match(coldProblem.message, /^invalid JSON: /)
        assert.equal(warmProblem, coldProblem)

        assert.is(coldServed.size, (levelCount - 1) * roles.length, 'every other level serves')
        for (const [resource, { hash, bytes }] of coldServed) {
            const again = warmServed.get(resource)
            assert.ok(again, `${resource} served by the warm start`)
            assert.is(again.hash, hash, `${resource}: same hash`)
            assert.ok(again.bytes.equals(bytes), `${resource}: same bytes`)
            assert.is(sha1(bytes), hash, `${resource}: the hash is the SHA-1 of the bytes`)
            const [level, role] = resource.split('/') as [string, string]
            const source = await readFile(
                join(
                    tree.dir,
                    'levels',
                    level,
                    role === 'data' ? 'data.json' : `${role}.${role === 'cover' ? 'png' : 'mp3'}`,
                ),
            )
            if (role !== 'data') {
                assert.ok(bytes.equals(source), `${resource}: served as it is`)
                continue
            }
            const chart = JSON.parse(source.toString('utf8')) as unknown
            const minified = JSON.stringify(chart)
            assert.is(
                gunzipSync(bytes).toString('utf8'),
                minified,
                `${resource}: the chart gzipped`,
            )
            // A long chart is gzipped at a cheaper level than compress's; a short one, as compress does.
            if (minified.length < longFileBytes)
                assert.ok(
                    bytes.equals(compressSync(chart)),
                    `${resource}: the bytes compress makes`,
                )
        }
    } finally {
        await rm(folder, { recursive: true, force: true })
    }
})

test.run()
