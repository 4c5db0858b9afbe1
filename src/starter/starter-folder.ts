import { cp, mkdir, readdir, writeFile } from 'node:fs/promises'
import { join, relative, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import { schemasFolder } from '../content/schemas.js'

/** The example content that ships with Shelf, which the starter takes its engine and files from. */
export const exampleFolder = fileURLToPath(new URL('../../content/', import.meta.url))

/** A content folder that cannot be made where asked, in words for the person who asked. */
export class StarterRefusal extends Error {}

/** What a starter level plays on: the example's engine from npm, with what it names. */
const engineParts = [
    'engines/pjsekai',
    'skins/sekai-basic',
    'backgrounds/starfield',
    'effects/soft-clicks',
    'particles/sparkle',
]

export const starterLevel = 'my-first-level'

/**
 * Makes a content folder of one's own that serves and plays at once: `server.yaml`, one level
 * charted as a chart editor saves it and the engine from npm that plays it, a `.gitignore`
 * keeping Shelf's state out of git, a short README, and in every YAML file of one's own a line
 * that gives editors its JSON Schema.
 * A folder with anything in it is refused: nothing of someone's is ever overwritten.
 */
export const makeStarterFolder = async (folder: string) => {
    const entries = await readdir(folder).catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') return []
        if (error.code === 'ENOTDIR') throw new StarterRefusal(`${folder} is a file, not a folder`)
        throw error
    })
    if (entries.length)
        throw new StarterRefusal(
            `${folder} is not empty (it holds ${entries.slice(0, 3).join(', ')}${entries.length > 3 ? ', …' : ''}): shelf init makes a new content folder and never writes over files; name a new or empty folder, such as "shelf init my-content"`,
        )
    await mkdir(folder, { recursive: true })
    for (const part of engineParts)
        await cp(join(exampleFolder, part), join(folder, part), { recursive: true })
    const level = join(folder, 'levels', starterLevel)
    // The resources and chart only: the starter writes its own item.yaml.
    await cp(join(exampleFolder, 'levels/first-light'), level, {
        recursive: true,
        filter: (source) => !/[/\\](comments|leaderboards|item\.(md|yaml))$/.test(source),
    })
    const schemaHint = (file: string, schema: string) => {
        const path = relative(join(folder, file, '..'), join(schemasFolder, schema))
        return `# yaml-language-server: $schema=${path.split(sep).join('/')}\n`
    }
    await writeFile(
        join(folder, 'server.yaml'),
        `${schemaHint('server.yaml', 'server.schema.json')}${serverYaml}`,
    )
    await writeFile(
        join(level, 'item.yaml'),
        `${schemaHint(`levels/${starterLevel}/item.yaml`, 'level.schema.json')}${levelYaml}`,
    )
    await writeFile(
        join(folder, '.gitignore'),
        '# Shelf state: processed files and secrets\n.shelf/\n',
    )
    await writeFile(join(folder, 'README.md'), readme)
}

const serverYaml = `# The server's home page in the app. docs/content-format.md in Shelf describes every field.
title: My Sonolus server
description: Levels made by me.
fallbackLocale: en
`

const levelYaml = `# Your first level: change the title, save, and the app shows it at once.
title: My first level
artists: Me
author: Me
rating: 1
engine: pjsekai
`

const readme = `# My Sonolus server

Content for [Shelf](https://www.npmjs.com/package/sonolus-shelf), a server for the Sonolus app.

- \`npx shelf serve --content .\` serves this folder; add the printed address as a server in the
  app, or scan the QR code it prints. Every save shows in the app at once.
- A level is a folder under \`levels/\`: \`item.yaml\`, \`cover.png\`, \`bgm.mp3\` and its chart as
  a chart editor saves it (\`data.sus\` or \`data.usc\`). Copy \`levels/${starterLevel}\` to add one.
- \`engines/pjsekai\` is the Project Sekai engine from npm (\`package: sonolus-pjsekai-engine\`): it
  plays the levels and converts their charts on every save.
- \`npx shelf check .\` lists every mistake, with file and line.
`
