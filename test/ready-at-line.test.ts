/**
 * A folder of up to 20,000 items is whole when Shelf says it listens: nothing of the start's own
 * work (the served files' table, the search indexes) is left to run beside the first requests.
 */
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { contentTypes, type ContentType } from '../src/content/item-types.js'
import { startShelf } from '../src/server.js'
import { exampleContent, temporaryFolder } from './support/server.js'

/** What a catalog keeps to itself, read to see what its start left undone. */
type StartWork = {
    searchIndexes: Partial<Record<ContentType, object>>
    resources: { pending: unknown[] }
}

test('the example is whole at the listening line: every search index built, every served file in its table', async () => {
    const shelf = await startShelf(
        {
            content: exampleContent,
            name: 'service',
            drafts: false,
            cache: await temporaryFolder('shelf-cache-'),
        },
        { port: 0, host: '127.0.0.1' },
    )
    try {
        // Read in the turn the start resolves in, before any slice after the line could run.
        const catalog = shelf.catalog() as unknown as StartWork
        for (const type of contentTypes)
            assert.ok(catalog.searchIndexes[type], `${type}: its search index is built`)
        assert.is(catalog.resources.pending.length, 0, 'no served file waits for the table')
    } finally {
        await shelf.close()
    }
})

test.run()
