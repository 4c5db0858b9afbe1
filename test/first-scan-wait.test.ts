/**
 * A large folder's first scan starts a second after the listening line (src/server.ts): what is
 * saved in that second is not lost, and is served once every folder is watched.
 */
import { cp, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { generatePackTree } from '../bench/generate-pack-tree.js'
import { startShelf } from '../src/server.js'
import { eventually } from './support/eventually.js'
import { getJson, temporaryFolder } from './support/server.js'

test('a level saved while a large folder waits for its first scan is served once it watches', async () => {
    const folder = await temporaryFolder('shelf-scan-wait-')
    try {
        const tree = await generatePackTree(join(folder, 'tree'), { levels: 1_000, seed: 7 })
        const shelf = await startShelf(
            {
                content: tree.dir,
                name: 'service',
                drafts: false,
                cache: join(folder, 'state'),
                watch: true,
            },
            { port: 0, host: '127.0.0.1' },
        )
        try {
            let watched = false
            void shelf.watching.then(() => (watched = true))
            const original = tree.names.levels[0]!
            const saved = `${original}-again`
            const levelUrl = (name: string) => `${shelf.url}/service/levels/${name}`
            assert.is((await getJson(levelUrl(saved))).status, 404, 'not there at the line')
            // Saved right after the line, as the scan waits its second; found wherever the scan stands.
            await cp(join(tree.dir, 'levels', original), join(tree.dir, 'levels', saved), {
                recursive: true,
            })
            await eventually('every folder watched', async () => watched)
            await eventually(
                `${saved} served`,
                async () => (await getJson(levelUrl(saved))).status === 200,
            )
            assert.is((await getJson(levelUrl(original))).status, 200)
        } finally {
            await shelf.close()
        }
    } finally {
        await rm(folder, { recursive: true, force: true })
    }
})

test.run()
