import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'

/**
 * Raises the write rates of a copied content folder's server.yaml far past what a test makes:
 * tests that write a lot from one address are about something else than the rates.
 */
export const generousWriteLimits = async (content: string) => {
    const file = join(content, 'server.yaml')
    const text = await readFile(file, 'utf8')
    const rate = '{ perPlayer: 100000, perAddress: 100000, perSeconds: 60 }'
    const raised = text.replace(
        /^limits:\n/m,
        `limits:\n  comments: ${rate}\n  creates: ${rate}\n  results: ${rate}\n`,
    )
    if (raised === text) throw new Error('server.yaml has no "limits:" to raise')
    await writeFile(file, raised)
}

/**
 * Sets one kind's rate in a content folder's server.yaml (`{ perPlayer: 3, perAddress: 7,
 * perSeconds: 60 }`), in place of the one there, if any.
 */
export const setWriteLimit = async (content: string, kind: string, rate: string) => {
    const file = join(content, 'server.yaml')
    const text = await readFile(file, 'utf8')
    const line = `  ${kind}: ${rate}\n`
    const existing = new RegExp(`^ {2}${kind}: \\{ perPlayer.*\\n`, 'm')
    const changed = existing.test(text)
        ? text.replace(existing, line)
        : text.replace(/^limits:\n/m, `limits:\n${line}`)
    if (changed === text) throw new Error('server.yaml has no "limits:" to set a rate in')
    await writeFile(file, changed)
}
