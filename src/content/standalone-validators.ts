import type { ValidateFunction } from 'ajv'
import standaloneCode from 'ajv/dist/standalone/index.js'
import { schemaAjv } from './schema-ajv.js'
import { exportName, validatedSchemaIds } from './schemas.js'

/**
 * Every validator of the schemas in `folder`, by `exportName(id)`, and those of the schemas in
 * `more` (each with its `$id`) by their keys: each the source of a CommonJS module of its own, so
 * that a start requires only the validators it runs. A module must live where it can resolve the
 * `ajv` package (it requires ajv's runtime helpers: deep equality, string length).
 */
export const standaloneValidatorsCode = (
    folder: string,
    more: Record<string, { $id: string }> = {},
): Record<string, string> => {
    const ajv = schemaAjv(folder, { code: { source: true } })
    for (const schema of Object.values(more)) ajv.addSchema(schema)
    const ids = [
        ...validatedSchemaIds().map((id) => [exportName(id), id] as const),
        ...Object.entries(more).map(([name, schema]) => [name, schema.$id] as const),
    ]
    return Object.fromEntries(
        ids.map(([name, id]) => [
            name,
            standaloneCode.default(ajv, ajv.getSchema(id) as ValidateFunction),
        ]),
    )
}
