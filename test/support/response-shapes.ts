import { Ajv, type ValidateFunction } from 'ajv'
import { fileURLToPath } from 'node:url'
import { createGenerator } from 'ts-json-schema-generator'
import type { Responses } from './response-types.js'

const validators = new Map<string, ValidateFunction>()

/**
 * JSON Schemas generated from `@sonolus/core`'s own types (once per test run), so a response
 * with a missing, misspelt or extra field fails at run time just as it would fail to compile.
 */
const compileValidators = () => {
    const schema = createGenerator({
        path: fileURLToPath(new URL('./response-types.ts', import.meta.url)),
        tsconfig: fileURLToPath(new URL('../../tsconfig.json', import.meta.url)),
        type: 'Responses',
        skipTypeCheck: true,
        additionalProperties: false,
    }).createSchema('Responses')
    const ajv = new Ajv({ allErrors: true, strict: false, inlineRefs: false })
    ajv.addSchema(schema, 'responses')
    return ajv
}

/** Throws with ajv's errors when `body` is not a valid `name` response. */
export const assertShape = (name: keyof Responses, body: unknown) => {
    let validate = validators.get(name)
    if (!validate) {
        validate = ajv.getSchema(`responses#/definitions/Responses/properties/${name}`)!
        validators.set(name, validate)
    }
    if (!validate(body)) {
        throw new Error(
            `response is not a valid ${name}:\n${JSON.stringify(validate.errors, null, 2)}\n${JSON.stringify(body).slice(0, 500)}`,
        )
    }
}

// Generating and compiling takes seconds of blocking work: done on import, before any test
// server has connections open that such a pause could break.
const ajv = compileValidators()
