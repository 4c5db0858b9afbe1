/**
 * Writes every content validator as plain JavaScript next to this file (`npm run build` runs it
 * after compiling), so that a start loads them instead of loading ajv and compiling the schemas,
 * which took half a second. validate.ts picks them up; without them it compiles the schemas itself.
 */
import { writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { schemasFolder } from './schemas.js'
import { standaloneValidatorsCode } from './standalone-validators.js'

const target = fileURLToPath(new URL('./precompiled-validators.js', import.meta.url))
writeFileSync(target, standaloneValidatorsCode(schemasFolder))
