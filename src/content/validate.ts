import type { ErrorObject, ValidateFunction } from 'ajv'
import { closest, distance } from 'fastest-levenshtein'
import { precompiledValidators } from '../util/precompiled-validators.js'
import {
    defaultsSchemaId,
    exportName,
    schemaId,
    schemasFolder,
    type SchemaName,
} from './schemas.js'

/** One schema violation, with the path into the data so the loader can find its line. */
export type SchemaIssue = {
    path: (string | number)[]
    message: string
}

/**
 * The validators the build precompiled, which saves loading ajv and compiling every schema at
 * each start, half a second. Run from the TypeScript sources there are none: ajv is loaded then,
 * and compiles each schema on first use.
 */
const precompiled = precompiledValidators
const validatorOf: (id: string) => ValidateFunction | undefined = precompiled
    ? (id) => precompiled(exportName(id))
    : await import('./schema-ajv.js').then(({ schemaAjv }) => {
          const ajv = schemaAjv(schemasFolder)
          return (id: string) => ajv.getSchema(id)
      })

/**
 * Validates content files against the JSON Schemas in `schemas/`, the same files editors use for
 * completion, and turns ajv's errors into one readable sentence per problem.
 */
export class ContentValidator {
    validate(name: SchemaName, data: unknown): SchemaIssue[] {
        return this.run(schemaId(name), data)
    }

    /** Per-folder defaults hold any record field, none of them required on their own. */
    validateDefaults(name: SchemaName, data: unknown): SchemaIssue[] {
        return this.run(defaultsSchemaId(name), data)
    }

    /**
     * Loads the validators of `names` and runs each once, on nothing: a start from the snapshot
     * validates no record, so the first edit after it loaded and compiled its type's validator in
     * the loop (a level's, during the first scan at 100,000 levels: 13-24 ms of CPU).
     */
    warmUp(names: readonly SchemaName[]) {
        for (const name of names) this.validate(name, {})
    }

    private run(id: string, data: unknown) {
        const validate = validatorOf(id)
        if (!validate) throw new Error(`schema ${id} is missing from ${schemasFolder}`)
        if (validate(data)) return []
        return describeErrors(validate.errors ?? [])
    }
}

const describeErrors = (errors: ErrorObject[]): SchemaIssue[] => {
    // A failed `anyOf`/`oneOf` also reports every branch's failure; the branches' details are
    // noise to a person, so one sentence about the whole alternative replaces them.
    const alternatives = errors.filter(
        (error) => error.keyword === 'anyOf' || error.keyword === 'oneOf',
    )
    const isInsideAlternative = (error: ErrorObject) =>
        alternatives.some(
            (alternative) =>
                alternative !== error &&
                error.schemaPath.startsWith(
                    alternative.schemaPath.replace(/\/(anyOf|oneOf)$/, '/$1/'),
                ) &&
                error.instancePath.startsWith(alternative.instancePath),
        )
    const issues = new Map<string, SchemaIssue>()
    for (const error of errors) {
        if (error.keyword === 'if' || isInsideAlternative(error)) continue
        const issue = describeError(error)
        issues.set(`${issue.path.join('/')}\n${issue.message}`, issue)
    }
    return [...issues.values()]
}

const describeError = (error: ErrorObject): SchemaIssue => {
    const path = pointerToPath(error.instancePath)
    const params = error.params as Record<string, unknown>
    switch (error.keyword) {
        case 'additionalProperties': {
            const key = String(params.additionalProperty)
            const known = Object.keys((error.parentSchema?.properties as object | undefined) ?? {})
            return {
                path: [...path, key],
                message: `unknown field "${key}"${didYouMean(key, known)}`,
            }
        }
        case 'required':
            // The path names the missing field; its position falls back to the map that lacks it.
            return {
                path: [...path, String(params.missingProperty)],
                message: `missing required field "${String(params.missingProperty)}"`,
            }
        case 'type':
            return {
                path,
                message: `expected ${String(params.type)}, got ${describeValue(error.data)}`,
            }
        case 'const':
            return {
                path,
                message: `expected ${JSON.stringify(params.allowedValue)}, got ${describeValue(error.data)}`,
            }
        case 'enum': {
            const allowed = (params.allowedValues as unknown[]).map((value) =>
                JSON.stringify(value),
            )
            const got =
                typeof error.data === 'string'
                    ? didYouMean(error.data, (params.allowedValues as unknown[]).map(String))
                    : ''
            return {
                path,
                message: `expected one of ${allowed.join(', ')}, got ${describeValue(error.data)}${got}`,
            }
        }
        case 'anyOf':
        case 'oneOf': {
            const expected =
                (error.parentSchema?.title as string | undefined) ?? 'one of the allowed forms'
            return {
                path,
                message: `expected ${lowerFirst(expected)}, got ${describeValue(error.data)}`,
            }
        }
        case 'pattern': {
            const expected = error.parentSchema?.title as string | undefined
            return {
                path,
                message: expected
                    ? `expected ${lowerFirst(expected)}, got ${describeValue(error.data)}`
                    : `${describeValue(error.data)} ${error.message ?? 'is not allowed'}`,
            }
        }
        default:
            return { path, message: error.message ?? 'is not allowed' }
    }
}

const lowerFirst = (text: string) => text.charAt(0).toLowerCase() + text.slice(1)

const didYouMean = (word: string, candidates: string[]) => {
    if (!candidates.length) return ''
    const suggestion = closest(word, candidates)
    return distance(word, suggestion) <= Math.max(2, Math.floor(word.length / 3))
        ? ` (did you mean "${suggestion}"?)`
        : ''
}

const describeValue = (value: unknown) => {
    if (value === null) return 'null'
    if (Array.isArray(value)) return 'a list'
    if (typeof value === 'object') return 'a map'
    if (typeof value === 'string')
        return `"${value.length > 40 ? `${value.slice(0, 40)}…` : value}"`
    return `${typeof value} ${String(value)}`
}

const pointerToPath = (pointer: string): (string | number)[] =>
    pointer
        .split('/')
        .slice(1)
        .map((segment) => segment.replaceAll('~1', '/').replaceAll('~0', '~'))
        .map((segment) => (/^\d+$/.test(segment) ? Number(segment) : segment))

/** `tags[0].title`: how a field is named in messages. */
export const formatFieldPath = (path: readonly (string | number)[]) =>
    path
        .map((key, index) => (typeof key === 'number' ? `[${key}]` : index === 0 ? key : `.${key}`))
        .join('')
