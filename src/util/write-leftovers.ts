import { randomBytes } from 'node:crypto'
import { isAtomicTemporary } from './atomic-write.js'

/**
 * The hidden folder beside an item the writer works in: `.x.<hex>.tmp` while a new item is
 * staged, `.x.<hex>.deleted` while a removed one is emptied. The loader skips dot folders.
 */
export const asideName = (name: string, purpose: 'tmp' | 'deleted') =>
    `.${name}.${randomBytes(4).toString('hex')}.${purpose}`

export const isAsideName = (name: string) =>
    /^\.[A-Za-z0-9._~-]+\.[0-9a-f]{8}\.(tmp|deleted)$/.test(name)

/** Whether an entry of a folder is what a write cut short leaves: a staging or trash folder, a temporary file. */
export const isWriteLeftover = (name: string, kind: 'file' | 'folder') =>
    kind === 'folder' ? isAsideName(name) : isAtomicTemporary(name)
