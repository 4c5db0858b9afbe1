/**
 * Writes every content validator as plain JavaScript next to this file (`npm run build` runs it
 * after compiling), so that a start loads them instead of compiling the schemas, which took a
 * third of a second. validate.ts picks them up; without them it compiles the schemas itself.
 */
import { rmSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

const target = fileURLToPath(new URL('./precompiled-validators.js', import.meta.url))
// validate.ts loads the validators of the last build when it is imported: they may no longer load.
rmSync(target, { force: true })
const { standaloneValidatorsCode } = await import('./standalone-validators.js')
const { schemasFolder } = await import('./validate.js')
writeFileSync(target, standaloneValidatorsCode(schemasFolder))
