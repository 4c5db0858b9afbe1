import { sharedContentType } from './hash-cache.js'
import { contentTypeInfos, type ContentType } from './item-types.js'
import type { CommentRecord } from './comment-file.js'
import {
    keptReferenceLocator,
    type ItemRecord,
    type LeaderboardRecord,
    type ProblemPosition,
} from './load.js'
import type { ItemFields } from './records.js'
import type { Resource } from './resources.js'

/**
 * The served resources of a unit as a start snapshot keeps them, in one flat array, six values
 * each: `role, hash, where, contentType, offset, length`, `where` the file's name in its item
 * folder or the place of a file Shelf made in the snapshot's `made`, then a pack slice's offset
 * and length (-1 and 0 for a whole file).
 */
export type KeptServed = (string | number)[]

/** Srls that point elsewhere, by role, kept as they are. */
export type KeptExternals = Record<string, Extract<Resource, { external: unknown }>>

/** The comments and leaderboards of every unit kept (only folders without any are): one array for 200,000 at 100,000 levels. */
const noParts = Object.freeze([]) as never[]

/**
 * A record taken from a start snapshot. Its served resources stay the JSON text of their
 * `KeptServed` until first asked for: nothing before the listening line looks at them, and at a
 * hundred thousand levels their parsed arrays, strings and objects were a third of the records
 * file's parse and of the collections that copied them, on the main thread before the line.
 */
export class KeptRecord implements ItemRecord {
    readonly comments: CommentRecord[] = noParts
    readonly leaderboards: LeaderboardRecord[] = noParts
    private read: Record<string, Resource> | undefined

    constructor(
        readonly type: ContentType,
        readonly name: string,
        readonly file: string,
        readonly fields: ItemFields,
        /** The content folder, and the paths of the files Shelf made that `where` places name. */
        private readonly place: { root: string; made: readonly (readonly [string, number])[] },
        private servedText: string | undefined,
        private readonly externals: KeptExternals | undefined,
        private readonly positions: [string, ProblemPosition][] | undefined,
    ) {}

    get resources(): Record<string, Resource> {
        return (this.read ??= this.readResources())
    }

    locateReference(field: string) {
        return keptReferenceLocator(this.place.root, this.file, this.positions)(field)
    }

    /**
     * The resources the text keeps. Shelf wrote it in the same file as the rest of the line,
     * which was whole when read; should it still not be an array, or name a made file the
     * snapshot does not list, the record serves no file rather than a wrong one.
     */
    private readResources() {
        const resources: Record<string, Resource> = this.externals ? { ...this.externals } : {}
        let served: KeptServed
        try {
            served = JSON.parse(this.servedText!) as KeptServed
        } catch {
            served = []
        }
        this.servedText = undefined
        if (!Array.isArray(served)) return resources
        const base = `${this.place.root}/${contentTypeInfos[this.type].plural}/${this.name}/`
        for (let at = 0; at + 5 < served.length; at += 6) {
            const role = served[at] as string
            const hash = served[at + 1] as string
            const where = served[at + 2]!
            const contentType = sharedContentType(served[at + 3] as string)
            const offset = served[at + 4] as number
            const length = served[at + 5] as number
            const path = typeof where === 'string' ? base + where : this.place.made[where]?.[0]
            if (path === undefined) continue
            resources[role] = {
                served:
                    offset < 0
                        ? { hash, path, contentType }
                        : { hash, path, contentType, slice: { offset, length } },
            }
        }
        return resources
    }
}
