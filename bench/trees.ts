/**
 * Generated pack trees, cached in bench/out/ (gitignored) and reused while their size, seed and
 * generator version match.
 */
import { existsSync } from 'node:fs'
import { readFile, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { TREE_FORMAT_VERSION, generatePackTree, removeTree } from './generate-pack-tree.js'
import { log } from './output.js'

export const DEFAULT_TREES_DIR = join(dirname(fileURLToPath(import.meta.url)), 'out')

interface TreeManifest {
    /**
     * False from the generation's start until its end, so a tree cut short is regenerated, never
     * used; older manifests lack it, and were written only once their tree was complete.
     */
    complete?: boolean
    formatVersion: number
    levels: number
    seed: number
    files: number
    bytes: number
    generatedSeconds: number
}

/**
 * The manifest sits next to the tree, not in it, so the tree stays an unmodified pack tree. It is
 * written before the generation (incomplete) and again after it, so a tree whose generation was
 * interrupted is never reused, and a folder without one was not made here and is never removed.
 */
async function readManifest(path: string): Promise<TreeManifest | null> {
    try {
        return JSON.parse(await readFile(path, 'utf8')) as TreeManifest
    } catch {
        return null
    }
}

/** The folder of the tree of `levels` levels and `seed`, generated first if need be. */
export async function ensureTree(treesDir: string, levels: number, seed: number): Promise<string> {
    const dir = join(treesDir, `tree-${levels}-seed-${seed}`)
    const manifestPath = `${dir}.json`
    const manifest = await readManifest(manifestPath)
    if (
        manifest &&
        manifest.complete !== false &&
        manifest.formatVersion === TREE_FORMAT_VERSION &&
        manifest.levels === levels &&
        manifest.seed === seed &&
        existsSync(dir)
    ) {
        log(`reusing ${dir} (${manifest.files} files)`)
        return dir
    }

    // A copy made by hand without its manifest (or someone's own content) is not the bench's to delete.
    if (!manifest && existsSync(dir))
        throw new Error(
            `${dir} exists without its manifest ${manifestPath}, so it was not generated here; ` +
                'copy the manifest beside it to reuse it, or remove the folder to generate a new tree',
        )
    const begun: TreeManifest = {
        complete: false,
        formatVersion: TREE_FORMAT_VERSION,
        levels,
        seed,
        files: 0,
        bytes: 0,
        generatedSeconds: 0,
    }
    await writeFile(manifestPath, `${JSON.stringify(begun, null, 4)}\n`)
    await removeTree(dir)
    log(`generating ${dir} …`)
    const tree = await generatePackTree(dir, { levels, seed })
    const written: TreeManifest = {
        complete: true,
        formatVersion: TREE_FORMAT_VERSION,
        levels,
        seed,
        files: tree.files,
        bytes: tree.bytes,
        generatedSeconds: tree.seconds,
    }
    await writeFile(manifestPath, `${JSON.stringify(written, null, 4)}\n`)
    log(`generated ${tree.files} files in ${tree.seconds.toFixed(1)} s`)
    return dir
}
