/**
 * A child process that writes into a content folder through the real ContentWriter without
 * end, new posts and large comments at once, printing `written <unit>` for each finished one,
 * so that a test can `kill -9` it in the middle of a write.
 */
import { CatalogUpdates } from '../../src/updates/catalog-updates.js'
import { ContentWriter, generatedName } from '../../src/writes/content-writer.js'

const root = process.argv[2]!
const writer = new ContentWriter(root, new CatalogUpdates(root, async () => {}, false))
const large = Buffer.alloc(8 * 1024 * 1024, 'x')

const createPosts = async () => {
    for (;;) {
        const name = generatedName()
        await writer.createItem('posts', name, {
            'item.yaml': `title: ${name}\ntime: 2024-01-01\n`,
            'notes.txt': large,
        })
        console.log(`written posts/${name}`)
    }
}

const writeComments = async () => {
    for (;;) {
        const path = `posts/patch-notes/comments/${generatedName()}.md`
        await writer.updateFiles([
            { path, bytes: `---\nauthor: Writer\ntime: 2024-01-01\n---\n${large.toString()}\n` },
        ])
        console.log(`written ${path}`)
    }
}

console.log('writing')
await Promise.all([createPosts(), writeComments()])
