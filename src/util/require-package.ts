import { createRequire } from 'node:module'

/**
 * `require` for what is loaded on demand rather than at every start (gray-matter, markdown-it,
 * the precompiled validators): resolved from here, which lies two folders below the project as
 * built or not, so the project's `node_modules` and `dist/` are found the same way.
 */
export const requirePackage = createRequire(import.meta.url)
