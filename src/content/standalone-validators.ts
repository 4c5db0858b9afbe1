import standaloneCode from 'ajv/dist/standalone/index.js'
import { schemaAjv } from './schema-ajv.js'
import { exportName, validatedSchemaIds } from './schemas.js'

/**
 * Every validator of the schemas in `folder` as the source of an ES module, exported under
 * `exportName(id)`, and those of the schemas in `more` (each with its `$id`) under their keys. It
 * must live where it can resolve the `ajv` package.
 */
export const standaloneValidatorsCode = (
    folder: string,
    more: Record<string, { $id: string }> = {},
) => {
    const ajv = schemaAjv(folder, { code: { source: true, esm: true } })
    for (const schema of Object.values(more)) ajv.addSchema(schema)
    const exports = Object.fromEntries([
        ...validatedSchemaIds().map((id) => [exportName(id), id]),
        ...Object.entries(more).map(([name, schema]) => [name, schema.$id]),
    ])
    // ajv's ES module output still `require`s its few runtime helpers (deep equality, string length).
    return `import { createRequire } from 'node:module'\nconst require = createRequire(import.meta.url)\n${standaloneCode.default(ajv, exports)}`
}
