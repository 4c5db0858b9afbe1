import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import type { Containment } from '../content/containment.js'
import { isIgnored } from '../content/ignored-names.js'
import { isSafeName } from '../content/load.js'
import { parseRecordFile, type ParsedFile } from '../content/parse-file.js'
import { ContentError, type Problem } from '../content/problems.js'
import { maxRecordBytes, readTextFile } from '../content/read-text.js'
import type { TagRecord } from '../content/records.js'
import type { LocalizedText } from '../content/text.js'
import { formatFieldPath, type ContentValidator } from '../content/validate.js'

/** How an owner describes a person in `users/<name>/item.yaml`. */
export type UserFile = {
    name: string
    file: string
    title?: LocalizedText
    handle?: string
    description?: LocalizedText
    tags: TagRecord[]
}

const folder = 'users'
const recordFileNames = ['item.yaml', 'item.yml', 'item.json', 'item.md']

/** The person a changed path (relative, `/`-separated) is about, if it is under `users/`. */
export const userOfPath = (path: string): string | undefined => {
    const [first, second] = path.split('/')
    return first === folder ? (second ?? '') : undefined
}

/**
 * The owner's descriptions of people, `users/<name>/item.yaml`, each read again when a path
 * under its folder changes (the whole folder when `users/` itself does). A file with problems
 * describes nobody, and its problems are reported; the person's page stays, made from what they wrote.
 */
export class UserFiles {
    private readonly files = new Map<string, UserFile>()
    private readonly problemsByName = new Map<string, Problem[]>()
    private changed = new Set<string>()

    constructor(
        private readonly root: string,
        private readonly validator: ContentValidator,
        private readonly containment: Containment,
        /** The start's parse cache, while it loads; parseRecordFile itself otherwise. */
        private readonly parse: (file: string, text: string) => ParsedFile = parseRecordFile,
    ) {}

    get(name: string) {
        return this.files.get(name)
    }

    get problems(): Problem[] {
        return [...this.problemsByName.values()].flat()
    }

    /** Every person with a file. */
    names() {
        return this.files.keys()
    }

    /** The names whose file changed since the last call, and forgets them. */
    takeChanged(): Set<string> {
        const changed = this.changed
        this.changed = new Set()
        return changed
    }

    loadAll() {
        const names = new Set([...this.files.keys(), ...this.problemsByName.keys(), ...this.list()])
        for (const name of names) this.load(name)
    }

    /** Reads again the people the changed paths are about. */
    reload(paths: Iterable<string>) {
        const names = new Set<string>()
        for (const path of paths) {
            const name = userOfPath(path)
            if (name === '') return this.loadAll()
            if (name !== undefined) names.add(name)
        }
        for (const name of names) this.load(name)
    }

    private list(): string[] {
        const path = join(this.root, folder)
        if (this.containment.kindAt(path) !== 'folder') return []
        try {
            return readdirSync(path, { withFileTypes: true })
                .filter((entry) => this.containment.kindOf(path, entry) === 'folder')
                .map((entry) => entry.name)
                .filter((name) => !isIgnored(name))
        } catch {
            return []
        }
    }

    private load(name: string) {
        const problems: Problem[] = []
        const file = this.read(name, problems)
        const had = this.files.get(name)
        if (file) this.files.set(name, file)
        else this.files.delete(name)
        if (problems.length) this.problemsByName.set(name, problems)
        else this.problemsByName.delete(name)
        if (had || file) this.changed.add(name)
    }

    private read(name: string, problems: Problem[]): UserFile | undefined {
        const at = `${folder}/${name}`
        if (this.containment.kindAt(join(this.root, at)) !== 'folder') return undefined
        if (!isSafeName(name)) {
            problems.push({
                file: at,
                message: `"${name}" is not a usable person name: use only A-Z a-z 0-9 . _ ~ -`,
                severity: 'error',
            })
            return undefined
        }
        const present = recordFileNames.filter(
            (fileName) => this.containment.kindAt(join(this.root, at, fileName)) === 'file',
        )
        if (present.length !== 1) {
            if (present.length > 1)
                problems.push({
                    file: at,
                    message: `more than one record file (${present.join(', ')}): keep one`,
                    severity: 'error',
                })
            return undefined
        }
        const file = `${at}/${present[0]}`
        try {
            const parsed = this.parse(file, readTextFile(join(this.root, file), maxRecordBytes))
            const data = { ...(parsed.data as Record<string, unknown>) }
            if (parsed.body) data.description = parsed.body
            const issues = this.validator.validate('user', data)
            for (const issue of issues)
                problems.push({
                    file,
                    ...parsed.locate(issue.path),
                    field: formatFieldPath(issue.path) || undefined,
                    message: issue.message,
                    severity: 'error',
                })
            if (issues.length) return undefined
            return {
                name,
                file,
                title: data.title as LocalizedText | undefined,
                handle: data.handle as string | undefined,
                description: data.description as LocalizedText | undefined,
                tags: ((data.tags as unknown[] | undefined) ?? []).map((tag) =>
                    typeof tag === 'string' ? { title: tag } : (tag as TagRecord),
                ),
            }
        } catch (error) {
            problems.push({
                file,
                ...(error instanceof ContentError ? error.position : {}),
                message:
                    error instanceof ContentError
                        ? error.message
                        : `cannot read: ${(error as Error).message}`,
                severity: 'error',
            })
            return undefined
        }
    }
}
