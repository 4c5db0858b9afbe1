/**
 * What makes a warm start quick without changing what it finds: the validators `npm run build`
 * precompiles answer exactly as the schemas compiled at run time, and an item folder's listing
 * kept in the hash cache is used only while the folder is unchanged.
 */
import { mkdir, rm, writeFile } from 'node:fs/promises'
import { statSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import type { ValidateFunction } from 'ajv'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { Containment } from '../src/content/containment.js'
import { listFolder } from '../src/content/folder-listing.js'
import { HashCache } from '../src/content/hash-cache.js'
import { standaloneValidatorsCode } from '../src/content/standalone-validators.js'
import { exportName, schemaAjv, schemasFolder, validatedSchemaIds } from '../src/content/validate.js'
import { temporaryFolder } from './support/server.js'

/** Records wrong in the ways people get them wrong: missing, misspelt and mistyped fields, broken alternatives. */
const wrongRecords: unknown[] = [
    {},
    { titel: 'Night Drive' },
    { title: 5, rating: 'hard', engine: ['a'] },
    { title: { en: 'x', zz: 3 }, tags: ['ok', { title: 1 }], useSkin: { useDefault: 'no' }, time: 'yesterday' },
    { title: 'x', author: 'y', levels: 'one', records: [{ player: 1 }], meta: [], draft: 'yes' },
    [],
    'a string',
]

test('the precompiled validators report the same errors as the schemas compiled at run time', async () => {
    // The module resolves ajv's runtime helpers from where it is, so it is written inside the project.
    const folder = fileURLToPath(new URL('../node_modules/.cache/shelf-tests/', import.meta.url))
    await mkdir(folder, { recursive: true })
    const file = join(folder, `validators-${process.pid}.js`)
    await writeFile(file, standaloneValidatorsCode(schemasFolder))
    try {
        const precompiled = (await import(pathToFileURL(file).href)) as Record<string, ValidateFunction>
        const ajv = schemaAjv(schemasFolder)
        for (const id of validatedSchemaIds()) {
            const compiled = ajv.getSchema(id)!
            const standalone = precompiled[exportName(id)]
            assert.ok(standalone, `${id} is precompiled`)
            for (const record of wrongRecords) {
                assert.is(standalone!(record), compiled(record), `${id}: ${JSON.stringify(record)}`)
                assert.equal(standalone!.errors, compiled.errors, `${id}: ${JSON.stringify(record)}`)
            }
        }
    } finally {
        await rm(file, { force: true })
    }
})

test('a folder listing is reused while the folder is unchanged, and not trusted when just changed', async () => {
    const root = await temporaryFolder()
    const folder = join(root, 'level')
    const cacheFile = join(root, '.shelf', 'hashes.json')
    try {
        await mkdir(join(folder, 'comments'), { recursive: true })
        await writeFile(join(folder, 'item.json'), '{}')
        // A folder changed within the last second may change again with the same ctime.
        await new Promise((done) => setTimeout(done, 1100))
        const first = await HashCache.open(cacheFile)
        assert.equal(listFolder(folder, first, new Containment(folder)), { files: ['item.json'], folders: ['comments'] })
        await first.save()

        const second = await HashCache.open(cacheFile)
        assert.equal(second.lookupListing(folder, statSync(folder)), { files: ['item.json'], folders: ['comments'] })
        await writeFile(join(folder, 'cover.png'), '')
        assert.is(second.lookupListing(folder, statSync(folder)), undefined, 'a file added moves the ctime')
        assert.equal(listFolder(folder, second, new Containment(folder)).files.sort(), ['cover.png', 'item.json'])
        await second.save()

        const third = await HashCache.open(cacheFile)
        assert.is(third.lookupListing(folder, statSync(folder)), undefined, 'the listing right after the change was not kept')
        assert.equal(listFolder(folder, third, new Containment(folder)).files.sort(), ['cover.png', 'item.json'])
    } finally {
        await rm(root, { recursive: true, force: true })
    }
})

test.run()
