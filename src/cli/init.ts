import { isAbsolute, relative } from 'node:path'
import { makeStarterFolder, StarterRefusal, starterLevel } from '../starter/starter-folder.js'
import type { InitArguments } from './arguments.js'

/** `shelf init [DIR]`: a content folder of one's own, and what to do next. */
export const init = async ({ folder }: InitArguments) => {
    try {
        await makeStarterFolder(folder)
    } catch (error) {
        if (!(error instanceof StarterRefusal)) throw error
        console.error(`shelf: ${error.message}`)
        process.exitCode = 1
        return
    }
    const inside = relative(process.cwd(), folder)
    const shown = inside.startsWith('..') || isAbsolute(inside) ? folder : inside || '.'
    const content = shown === 'content' ? '' : ` --content ${shown}`
    console.log(`made a content folder in ${shown}/:
  server.yaml                      the home page: title and description
  levels/${starterLevel}/           your first level: item.yaml and its cover, music and chart
  engines/, skins/, backgrounds/, effects/, particles/
                                   a placeholder engine to start from
Next: npx shelf serve${content}
  and add the printed address as a server in the Sonolus app (or scan the QR code).`)
}
