import type { ValidateFunction } from 'ajv'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { requirePackage } from './require-package.js'

/** Where `npm run build` writes the validators it compiles ahead (cli/precompile-validators.ts). */
export const precompiledValidatorsFolder = fileURLToPath(
    new URL('../content/validators/', import.meta.url),
)

export const validatorFile = (name: string) => `${name}.cjs`

/** The validators written into `folder`, by export name, each required the first time it is asked for. */
export const validatorsIn =
    (folder: string) =>
    (name: string): ValidateFunction | undefined => {
        try {
            return requirePackage(join(folder, validatorFile(name))) as ValidateFunction
        } catch (error) {
            if ((error as NodeJS.ErrnoException).code === 'MODULE_NOT_FOUND') return undefined
            throw error
        }
    }

/**
 * The validators the build compiled ahead into plain functions: a warm start checks server.yaml
 * alone, and all 24 in one module (950 KB) were read and parsed by every start. Undefined when run
 * from the TypeScript sources, where there are none and each user compiles its schemas with ajv.
 */
export const precompiledValidators = existsSync(precompiledValidatorsFolder)
    ? validatorsIn(precompiledValidatorsFolder)
    : undefined
