import standaloneCode from 'ajv/dist/standalone/index.js'
import { schemaAjv } from './schema-ajv.js'
import { exportName, validatedSchemaIds } from './schemas.js'

/**
 * Every validator of the schemas in `folder` as the source of an ES module, exported under
 * `exportName(id)`. It must live where it can resolve the `ajv` package.
 */
export const standaloneValidatorsCode = (folder: string) => {
    const ajv = schemaAjv(folder, { code: { source: true, esm: true } })
    const exports = Object.fromEntries(validatedSchemaIds().map((id) => [exportName(id), id]))
    // ajv's ES module output still `require`s its few runtime helpers (deep equality, string length).
    return `import { createRequire } from 'node:module'\nconst require = createRequire(import.meta.url)\n${standaloneCode.default(ajv, exports)}`
}
