import type { ValidateFunction } from 'ajv'

/**
 * The validators `npm run build` compiles ahead into plain functions (cli/precompile-validators.ts),
 * by export name; undefined when run from the TypeScript sources, where there are none and each
 * user compiles its schemas with ajv.
 */
const precompiledModule = '../content/precompiled-validators.js'
export const precompiledValidators = await import(precompiledModule).then(
    (module) => module as Record<string, ValidateFunction | undefined>,
    (error: unknown) => {
        if ((error as NodeJS.ErrnoException).code === 'ERR_MODULE_NOT_FOUND') return undefined
        throw error
    },
)
