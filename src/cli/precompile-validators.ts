/**
 * Writes every validator Shelf runs as plain JavaScript into dist/content/ (`npm run build` runs
 * it after compiling), so that a start loads them instead of loading ajv and compiling the
 * schemas, which took half a second, and the first sign-in does not load ajv either (60–100 ms of
 * one turn of the event loop). util/precompiled-validators.ts picks them up; without them each
 * user compiles its schemas itself.
 */
import { writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { signedShape, signedShapeExport } from '../auth/signed-shape.js'
import { schemasFolder } from '../content/schemas.js'
import { standaloneValidatorsCode } from '../content/standalone-validators.js'

const target = fileURLToPath(new URL('../content/precompiled-validators.js', import.meta.url))
writeFileSync(target, standaloneValidatorsCode(schemasFolder, { [signedShapeExport]: signedShape }))
