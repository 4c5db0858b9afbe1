import { existsSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { ChartError } from './chart-error.js'
import { chartFormats, type ChartFormat } from './chart-formats.js'
import { PackageDescriptions } from './package-descriptions.js'
import { importExports } from './package-exports.js'

/** A text as packages give it: one string, or one per locale code. */
type Text = string | Record<string, string>

/** An engine published on npm, as installed: its files, its texts and the charts it converts. */
export type EnginePackage = {
    name: string
    version: string
    /** The package's main module, where its converters are exported. */
    entry: string
    /** The engine's files by resource role, absolute paths into the installed package. */
    files: Record<string, string>
    /** Title, subtitle, author and description the package gives the engine. */
    texts: Partial<Record<'title' | 'subtitle' | 'author' | 'description', Text>>
    /** The chart formats the package exports converters for. */
    formats: readonly ChartFormat[]
}

/** The package entry points an engine package exposes its files under (sonolus-*-engine). */
const fileExports: Record<string, string> = {
    thumbnail: 'EngineThumbnail',
    playData: 'EnginePlayData',
    watchData: 'EngineWatchData',
    previewData: 'EnginePreviewData',
    tutorialData: 'EngineTutorialData',
    configuration: 'EngineConfiguration',
    rom: 'EngineRom',
}
const optionalFiles = new Set(['rom'])

type PackageJson = { name?: string; version?: string }
type DatabaseEngineItem = Partial<Record<'title' | 'subtitle' | 'author' | 'description', unknown>>

/**
 * Finds engine packages where npm installs them: beside the content folder (a content
 * repository with its own package.json), then beside Shelf. A package found is read once; one
 * missing is looked for again at the next reload, so that an `npm install` is seen without a
 * restart at the next save.
 */
export class EnginePackages {
    private readonly found = new Map<string, Promise<EnginePackage>>()
    private readonly requires: NodeJS.Require[]
    private readonly descriptions: PackageDescriptions

    /** `descriptionsFile`: where what the packages' modules say of themselves is kept across starts. */
    constructor(contentRoot: string, descriptionsFile?: string) {
        this.descriptions = new PackageDescriptions(descriptionsFile)
        this.requires = [
            createRequire(join(contentRoot, 'package.json')),
            createRequire(import.meta.url),
        ]
    }

    /** The installed package of this name; a ChartError saying what to run when there is none. */
    find(name: string): Promise<EnginePackage> {
        let found = this.found.get(name)
        if (!found) {
            found = this.read(name)
            this.found.set(name, found)
            found.catch(() => this.found.delete(name))
        }
        return found
    }

    private async read(name: string): Promise<EnginePackage> {
        const require = this.requires.find((candidate) => packageFolder(candidate, name))
        const folder = require && packageFolder(require, name)
        if (!require || !folder)
            throw new ChartError(
                `engine package "${name}" is not installed: run \`npm install ${name}\` in Shelf's folder (or in the content folder)`,
            )
        const info = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')) as PackageJson
        const files: Record<string, string> = {}
        for (const [role, entry] of Object.entries(fileExports)) {
            const path = resolveOrUndefined(require, `${name}/${entry}`)
            if (path) files[role] = path
            else if (!optionalFiles.has(role))
                throw new ChartError(
                    `"${name}" is no engine package: it exposes no ${entry} (an engine package exposes ${Object.values(fileExports).join(', ')})`,
                )
        }
        const entry = resolveOrUndefined(require, name)
        const version = info.version ?? 'unknown'
        const described = entry
            ? await this.descriptions.describe(name, version, entry, async () =>
                  describeExports(await loadExports(entry, name)),
              )
            : describeExports({})
        return {
            name,
            version,
            entry: entry ?? '',
            files,
            texts: engineTexts(described.texts as DatabaseEngineItem),
            formats: chartFormats.filter((format) => described.formats.includes(format.file)),
        }
    }
}

/** What a package's exports say of the engine: the texts of its `databaseEngineItem`, and the formats whose converters it exports. */
const describeExports = (exports: Record<string, unknown>) => ({
    texts: engineTexts(exports.databaseEngineItem as DatabaseEngineItem | undefined),
    formats: chartFormats
        .filter((format) =>
            format.converters.every((converter) => typeof exports[converter] === 'function'),
        )
        .map((format) => format.file),
})

/** The folder npm installed a package in, as Node would find it from where `require` looks. */
const packageFolder = (require: NodeJS.Require, name: string) =>
    require.resolve
        .paths(name)
        ?.map((modules) => join(modules, name))
        .find((folder) => existsSync(join(folder, 'package.json')))

const resolveOrUndefined = (require: NodeJS.Require, specifier: string) => {
    try {
        return require.resolve(specifier)
    } catch {
        return undefined
    }
}

const loadExports = async (entry: string, name: string) => {
    try {
        return await importExports(entry)
    } catch (error) {
        throw new ChartError(
            `engine package "${name}" cannot be loaded: ${(error as Error).message}`,
        )
    }
}

const isText = (value: unknown): value is Text =>
    typeof value === 'string' ||
    (typeof value === 'object' &&
        value !== null &&
        Object.values(value).every((entry) => typeof entry === 'string'))

/** The texts of the package's `databaseEngineItem` (the item it describes itself with), those that are texts. */
const engineTexts = (item: DatabaseEngineItem | undefined): EnginePackage['texts'] => {
    const texts: EnginePackage['texts'] = {}
    for (const field of ['title', 'subtitle', 'author', 'description'] as const) {
        const value = item?.[field]
        if (isText(value)) texts[field] = value
    }
    return texts
}
