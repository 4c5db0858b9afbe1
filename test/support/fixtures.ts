import { createHash } from 'node:crypto'
import { mkdir, readdir, readFile, stat, utimes, writeFile } from 'node:fs/promises'
import { dirname, join, relative } from 'node:path'
import { deflateSync } from 'node:zlib'
import * as assert from 'uvu/assert'
import { rgbPng } from '../../bench/png.js'

/** SHA-1 hex of some bytes: what an Srl's `hash` must be for the bytes served at its url. */
export const sha1 = (bytes: Buffer | Uint8Array) => createHash('sha1').update(bytes).digest('hex')

/** A real 1×1 RGB PNG of one colour: different colours give different bytes (and hashes). */
export const tinyPng = (red = 0, green = 0, blue = 0) =>
    rgbPng(1, 1, deflateSync(Buffer.from([0, red, green, blue])))

/** One silent MPEG-1 Layer III frame (128 kbit/s, 44.1 kHz); `marker` varies the bytes. */
export const tinyMp3 = (marker = 0) => {
    const frame = Buffer.alloc(417)
    frame.set([0xff, 0xfb, 0x90, 0x64], 0)
    frame[40] = marker & 0xff
    return frame
}

/** An empty zip archive: just the end-of-central-directory record. */
export const emptyZip = () => {
    const end = Buffer.alloc(22)
    end.writeUInt32LE(0x06054b50, 0)
    return end
}

export type FileTree = Record<string, string | Buffer>

/** Writes `{ 'levels/a/item.yaml': '…' }` under `root`, creating folders as needed. */
export const writeTree = async (root: string, files: FileTree) => {
    for (const [path, content] of Object.entries(files)) {
        await mkdir(dirname(join(root, path)), { recursive: true })
        await writeFile(join(root, path), content)
    }
}

const json = (value: unknown) => JSON.stringify(value)

/**
 * The supporting items a level needs: skins `s1` and `s2`, background `b1`, effect `fx1`,
 * particle `p1`, and engines `eng1`, `eng2` (both using those). Records are minimal YAML.
 */
export const supportingItems = (): FileTree => {
    const files: FileTree = {}
    for (const [index, name] of ['s1', 's2'].entries()) {
        files[`skins/${name}/item.yaml`] = `title: Skin ${name}\n`
        files[`skins/${name}/thumbnail.png`] = tinyPng(10, index, 0)
        files[`skins/${name}/data.json`] = json({
            width: 1,
            height: 1,
            interpolation: false,
            sprites: [],
        })
        files[`skins/${name}/texture.png`] = tinyPng(11, index, 0)
    }
    files['backgrounds/b1/item.yaml'] = 'title: Background b1\n'
    files['backgrounds/b1/thumbnail.png'] = tinyPng(20, 0, 0)
    files['backgrounds/b1/data.json'] = json({ fit: 'cover', color: '#000000' })
    files['backgrounds/b1/image.png'] = tinyPng(21, 0, 0)
    files['backgrounds/b1/configuration.json'] = json({ blur: 0, mask: '#000000c0' })
    files['effects/fx1/item.yaml'] = 'title: Effect fx1\n'
    files['effects/fx1/thumbnail.png'] = tinyPng(30, 0, 0)
    files['effects/fx1/data.json'] = json({ clips: [] })
    files['effects/fx1/audio.zip'] = emptyZip()
    files['particles/p1/item.yaml'] = 'title: Particle p1\n'
    files['particles/p1/thumbnail.png'] = tinyPng(40, 0, 0)
    files['particles/p1/data.json'] = json({
        width: 1,
        height: 1,
        interpolation: false,
        sprites: [],
        effects: [],
    })
    files['particles/p1/texture.png'] = tinyPng(41, 0, 0)
    for (const [index, name] of ['eng1', 'eng2'].entries()) {
        files[`engines/${name}/item.yaml`] =
            `title: Engine ${name}\nskin: s1\nbackground: b1\neffect: fx1\nparticle: p1\n`
        files[`engines/${name}/thumbnail.png`] = tinyPng(50, index, 0)
        for (const role of [
            'playData',
            'watchData',
            'previewData',
            'tutorialData',
            'configuration',
        ]) {
            files[`engines/${name}/${role}.json`] = json({ role, engine: name })
        }
    }
    return files
}

/** The resource files of a level (`cover`, `bgm`, `data`) inside `levels/<name>/`. */
export const levelResources = (name: string, marker = 0): FileTree => ({
    [`levels/${name}/cover.png`]: tinyPng(60, marker, 0),
    [`levels/${name}/bgm.mp3`]: tinyMp3(marker),
    [`levels/${name}/data.json`]: json({ bgmOffset: 0, entities: [] }),
})

/** Every file below `root` (relative path → SHA-1 of its bytes), to tell what a run changed. */
export const snapshotTree = async (root: string): Promise<Map<string, string>> => {
    const snapshot = new Map<string, string>()
    const walk = async (folder: string) => {
        for (const entry of await readdir(folder, { withFileTypes: true })) {
            const path = join(folder, entry.name)
            if (entry.isDirectory()) {
                snapshot.set(`${relative(root, path)}/`, 'folder')
                await walk(path)
            } else {
                snapshot.set(relative(root, path), sha1(await readFile(path)))
            }
        }
    }
    await walk(root)
    return snapshot
}

export const exists = (path: string) =>
    stat(path).then(
        () => true,
        () => false,
    )

export type BytesResponse = { status: number; headers: Headers; bytes: Buffer }

/** The exact bytes a URL answers with (fetch would only decode them if the server said gzip). */
export const getBytes = async (url: string): Promise<BytesResponse> => {
    const response = await fetch(url)
    return {
        status: response.status,
        headers: response.headers,
        bytes: Buffer.from(await response.arrayBuffer()),
    }
}

/** Writes `text` into `file` and sets its times back to what they were: a change no clock shows. */
export const rewriteUnseen = async (file: string, text: string | Buffer) => {
    const { atime, mtime, size } = await stat(file)
    assert.is(Buffer.byteLength(text), size, 'the edit keeps the size')
    await writeFile(file, text)
    await utimes(file, atime, mtime)
}
