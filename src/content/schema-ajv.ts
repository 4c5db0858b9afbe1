import { Ajv, type Options } from 'ajv'
import { readdirSync, readFileSync } from 'node:fs'
import { defaultsSchemaId, defaultsSchemaNames, schemaId } from './schemas.js'

/**
 * An ajv holding every schema of the folder, and for each type a variant for per-folder
 * defaults, which hold any record field, none of them required on their own. Nothing is compiled yet.
 */
export const schemaAjv = (folder: string, options: Options = {}) => {
    const ajv = new Ajv({ allErrors: true, strict: true, verbose: true, ...options })
    const schemas = new Map<string, Record<string, unknown>>()
    for (const file of readdirSync(folder).filter((name) => name.endsWith('.schema.json'))) {
        const schema = JSON.parse(readFileSync(`${folder}/${file}`, 'utf8')) as Record<
            string,
            unknown
        >
        schemas.set(String(schema.$id), schema)
        ajv.addSchema(schema)
    }
    for (const name of defaultsSchemaNames) {
        const schema = schemas.get(schemaId(name))
        if (!schema) continue
        const { required: _, $id: __, ...rest } = schema
        ajv.addSchema({ ...rest, $id: defaultsSchemaId(name) })
    }
    return ajv
}
