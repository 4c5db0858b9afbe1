import { Worker } from 'node:worker_threads'

/**
 * Starts a worker module, named by its path below src/ and dist/ (`charts/chart-worker`): the
 * compiled `.js` one when Shelf runs from dist/, the `.ts` one when it runs from the TypeScript
 * sources (the tests). Every module lies one folder below src/ or dist/, bundled or not, so the
 * path is taken from this one. From the sources a worker does not inherit tsx's loader, so it
 * registers it before importing its module.
 */
export const startWorker = (
    path: string,
    options: ConstructorParameters<typeof Worker>[1] = {},
) => {
    const fromSources = import.meta.url.endsWith('.ts')
    const module = new URL(`../${path}${fromSources ? '.ts' : '.js'}`, import.meta.url)
    return fromSources
        ? new Worker(
              `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then((tsx) => tsx.register()).then(() => import(${JSON.stringify(module.href)}))`,
              { ...options, eval: true },
          )
        : new Worker(module, options)
}
