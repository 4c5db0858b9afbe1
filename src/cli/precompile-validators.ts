/**
 * Writes every validator Shelf runs as plain JavaScript into dist/content/validators/, a module
 * each (`npm run build` runs it after compiling), so that a start loads them instead of loading
 * ajv and compiling the schemas, which took half a second, and the first sign-in does not load
 * ajv either (60–100 ms of one turn of the event loop). util/precompiled-validators.ts picks them
 * up; without them each user compiles its schemas itself.
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { signedShape, signedShapeExport } from '../auth/signed-shape.js'
import { schemasFolder } from '../content/schemas.js'
import { standaloneValidatorsCode } from '../content/standalone-validators.js'
import { precompiledValidatorsFolder, validatorFile } from '../util/precompiled-validators.js'

mkdirSync(precompiledValidatorsFolder, { recursive: true })
const modules = standaloneValidatorsCode(schemasFolder, { [signedShapeExport]: signedShape })
for (const [name, code] of Object.entries(modules))
    writeFileSync(join(precompiledValidatorsFolder, validatorFile(name)), code)
