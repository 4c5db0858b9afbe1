import { readFile, rename, writeFile } from 'node:fs/promises'
import { join } from 'node:path'

/**
 * Replaces a level's `item.json` by a rename, its title changed (the file may be a link shared
 * with other copies of the tree, which an edit in place would change too); answers how to put it
 * back, by a rename again.
 */
export const editLevel = async (dir: string, name: string, by: string) => {
    const file = join(dir, 'levels', name, 'item.json')
    // A dot file is never content: the watcher does not report it.
    const temporary = join(dir, 'levels', name, '.item.json.bench')
    const original = await readFile(file, 'utf8')
    const item = JSON.parse(original) as { title: { en: string } }
    item.title.en += ` (edited by ${by})`
    await writeFile(temporary, `${JSON.stringify(item, null, 4)}\n`)
    await rename(temporary, file)
    return async () => {
        await writeFile(temporary, original)
        await rename(temporary, file)
    }
}
