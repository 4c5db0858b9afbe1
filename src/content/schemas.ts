import { fileURLToPath } from 'node:url'
import { contentTypes } from './item-types.js'

/** The schemas records are validated against, each in `schemas/NAME.schema.json`. */
const schemaNames = ['server', 'info', 'comment', 'leaderboard', 'user', ...contentTypes] as const

export type SchemaName = (typeof schemaNames)[number]

export const schemasFolder = fileURLToPath(new URL('../../schemas/', import.meta.url))

/** The types whose folders may hold a `_defaults.yaml`, each checked against its own record schema. */
export const defaultsSchemaNames: readonly SchemaName[] = contentTypes

export const schemaId = (name: SchemaName) => `${name}.schema.json`
export const defaultsSchemaId = (name: SchemaName) => `${name}.defaults.schema.json`

/** The name a precompiled validator is kept under, its module's file name (an id is no file name). */
export const exportName = (id: string) => id.replace(/\W/g, '_')

/** Every schema id a validator is asked for. */
export const validatedSchemaIds = () => [
    ...schemaNames.map(schemaId),
    ...defaultsSchemaNames.map(defaultsSchemaId),
]
