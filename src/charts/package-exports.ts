import { pathToFileURL } from 'node:url'

/** What a package's module exports; a CommonJS package's exports are its default export too. */
export const importExports = async (entry: string): Promise<Record<string, unknown>> => {
    const module = (await import(pathToFileURL(entry).href)) as Record<string, unknown>
    return { ...(module.default as object | undefined), ...module }
}
