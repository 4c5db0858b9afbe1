import { Worker } from 'node:worker_threads'

/**
 * Starts the worker module `name` that lies beside the module at `base` (its `import.meta.url`):
 * the compiled `.js` one when Shelf runs from dist/, the `.ts` one when it runs from the
 * TypeScript sources (the tests). There a worker does not inherit tsx's loader, so it registers
 * it before importing its module.
 */
export const startWorker = (
    base: string,
    name: string,
    options: ConstructorParameters<typeof Worker>[1] = {},
) => {
    const fromSources = base.endsWith('.ts')
    const module = new URL(`./${name}${fromSources ? '.ts' : '.js'}`, base)
    return fromSources
        ? new Worker(
              `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then((tsx) => tsx.register()).then(() => import(${JSON.stringify(module.href)}))`,
              { ...options, eval: true },
          )
        : new Worker(module, options)
}
