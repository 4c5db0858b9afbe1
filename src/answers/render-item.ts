import type {
    BackgroundItem,
    EffectItem,
    EngineItem,
    LevelItem,
    ParticleItem,
    PlaylistItem,
    PostItem,
    ReplayItem,
    SkinItem,
    Srl,
    Tag,
    UseItem,
    UserItem,
} from '@sonolus/core'
import { LRUCache } from 'lru-cache'
import type { ContentType } from '../content/item-types.js'
import type { TagRecord } from '../content/records.js'
import type { Resource } from '../content/resources.js'
import type { Person } from '../people/people.js'
import { personOf, type Authorship } from '../people/person-names.js'
import { localize, type LocalizedText } from '../content/text.js'
import type { Catalog, CatalogItem } from '../catalog/catalog.js'

export type ItemOfType = {
    post: PostItem
    playlist: PlaylistItem
    level: LevelItem
    skin: SkinItem
    background: BackgroundItem
    effect: EffectItem
    particle: ParticleItem
    engine: EngineItem
    replay: ReplayItem
}

export type AnyItem = ItemOfType[ContentType]

/** Bytes of serialized items kept per renderer: the pages players look at, not every item. */
const serializedBudget = 16 * 1024 * 1024

/**
 * A string's UTF-8 bytes in an allocation of their own: `Buffer.from` takes a short string's
 * bytes from a shared 8 KiB pool, which any one of them kept keeps whole.
 */
const bytesOf = (text: string) => {
    const bytes = Buffer.allocUnsafeSlow(Buffer.byteLength(text))
    bytes.write(text)
    return bytes
}

/** What a view of bytes costs beside them: the object in V8's heap and its place in the parts. */
const partOverheadBytes = 96

/**
 * What an item's parts keep alive: its own bytes (the parts at even places; those between are
 * the shared items' JSON, kept once per renderer whatever holds them). Counting the shared bytes
 * as each item's held a third as many levels (a level's own JSON is about 1 KB of its 5.3): at
 * 100,000 levels the pages of the quick-search mix (3,042 levels) did not fit, so nearly every
 * item of every page was rendered and serialized again, more than half of what a search allocated.
 */
const keptBytes = (parts: readonly Buffer[]) =>
    parts.reduce((sum, part, at) => sum + partOverheadBytes + (at % 2 === 0 ? part.length : 0), 0)

/** A level's fields holding items many levels share: serialized once per renderer (see `itemJson`). */
const sharedFields = ['engine', 'useSkin', 'useBackground', 'useEffect', 'useParticle']
/** What stands for a shared item's JSON in its holder's while that is serialized: a string no text of the item holds. */
const sharedMark = '\u0000shelf-shared:'
/** The mark as JSON writes it, the number after it and the closing quote: the item's JSON splits around the shared ones. */
const sharedMarkJson = /"\\u0000shelf-shared:(\d+)"/

/**
 * Turns catalog items into the protocol's item records for one locale and one source address.
 * Nested items (a level's engine, the engine's skin…) are rendered once and shared, so a list of
 * levels using one engine costs one engine.
 */
export class ItemRenderer {
    private readonly rendered = new Map<CatalogItem, AnyItem>()
    private readonly users = new Map<Person, UserItem>()
    /** Each list item's JSON in parts, the JSON of the items it shares with others (`sharedJson`) between its own. */
    private readonly serialized = new LRUCache<CatalogItem, readonly Buffer[]>({
        maxSize: serializedBudget,
        sizeCalculation: keptBytes,
    })
    /** The JSON of items nested in many (a level's engine and skin), by their rendered object. */
    private readonly sharedJsons = new WeakMap<object, Buffer>()

    constructor(
        private readonly catalog: Catalog,
        private readonly locale: string,
        private readonly fallbackLocale: string,
        readonly source: string,
        private readonly repositoryPath: string,
    ) {}

    text(text: LocalizedText | undefined): string {
        return localize(text, this.locale, this.fallbackLocale)
    }

    optionalText(text: LocalizedText | undefined): string | undefined {
        return text === undefined ? undefined : this.text(text)
    }

    srl(resource: Resource | undefined): Srl | undefined {
        if (!resource) return undefined
        if ('external' in resource) return resource.external
        return { hash: resource.served.hash, url: `${this.repositoryPath}/${resource.served.hash}` }
    }

    /** The user item of a person: titled `name#handle`, as the app shows an account. */
    user(person: Person): UserItem {
        let user = this.users.get(person)
        if (!user) {
            const title = this.text(person.title)
            user = {
                name: person.name,
                source: this.source,
                title: person.handle === undefined ? title : `${title}#${person.handle}`,
                handle: person.handle,
                tags: this.tags(person.tags),
            }
            this.users.set(person, user)
        }
        return user
    }

    /** The user item of whoever wrote a record (an item, a comment), when there is one. */
    authorUser(who: Authorship): UserItem | undefined {
        const name = personOf(who, this.fallbackLocale)
        const person = name === undefined ? undefined : this.catalog.people.get(name)
        return person && this.user(person)
    }

    tags(tags: readonly TagRecord[]): Tag[] {
        return tags.map((tag) => ({ title: this.optionalText(tag.title), icon: tag.icon }))
    }

    item<T extends ContentType>(item: CatalogItem & { type: T }): ItemOfType[T] {
        let rendered = this.rendered.get(item)
        if (!rendered) {
            rendered = this.render(item)
            this.rendered.set(item, rendered)
        }
        return rendered as ItemOfType[T]
    }

    /**
     * The item as JSON in UTF-8, in parts to be sent one after another, for lists: a page is put
     * together from its items' bytes rather than serialized whole for each request. A list item
     * is not kept rendered, only serialized. Bytes, not a string: a page joined as a string is
     * encoded to UTF-8 again for every request, and one title in Japanese makes the whole page a
     * string of two-byte characters, which costs five times as much to join and encode (0.8 ms
     * for a page of 20 levels). A level's engine and skin, 4.3 of its 5.3 KB, are the same in
     * many levels: serialized once, their bytes are shared, and a level not kept serializes a
     * quarter of itself.
     */
    itemJson(item: CatalogItem): readonly Buffer[] {
        let parts = this.serialized.get(item)
        if (parts === undefined) {
            parts = this.serializedParts(this.rendered.get(item) ?? this.render(item))
            this.serialized.set(item, parts)
        }
        return parts
    }

    private serializedParts(rendered: AnyItem): readonly Buffer[] {
        const shared: Buffer[] = []
        const standIn = (nested: object) => {
            let json = this.sharedJsons.get(nested)
            if (!json) {
                json = bytesOf(JSON.stringify(nested))
                this.sharedJsons.set(nested, json)
            }
            shared.push(json)
            return `${sharedMark}${shared.length - 1}`
        }
        const outline: Record<string, unknown> = { ...rendered }
        for (const field of sharedFields) {
            const value = outline[field] as { item?: object } | undefined
            if (!value || typeof value !== 'object') continue
            outline[field] =
                field === 'engine'
                    ? standIn(value)
                    : value.item
                      ? { ...value, item: standIn(value.item) }
                      : value
        }
        if (!shared.length) return [bytesOf(JSON.stringify(rendered))]
        const pieces = JSON.stringify(outline).split(sharedMarkJson)
        // A text of the item's own holding the mark (a NUL, then the mark) would misplace the parts: serialized whole then.
        if (pieces.length !== 2 * shared.length + 1) return [bytesOf(JSON.stringify(rendered))]
        // The item's own parts are views of one allocation of its own (see `bytesOf`).
        const own = bytesOf(pieces.filter((_, at) => at % 2 === 0).join(''))
        let offset = 0
        return pieces.map((piece, at) => {
            if (at % 2 === 1) return shared[Number(piece)]!
            const length = Buffer.byteLength(piece)
            offset += length
            return own.subarray(offset - length, offset)
        })
    }

    private render(item: CatalogItem): AnyItem {
        const { fields, resources } = item
        const base = {
            name: item.name,
            source: this.source,
            title: this.text(fields.title),
            author: this.text(fields.author),
            authorUser: this.authorUser(fields),
            tags: this.tags(fields.tags),
        }
        const subtitle = this.text(fields.subtitle)
        const srl = (role: string) => this.srl(resources[role])!
        const one = <T extends ContentType>(field: string) =>
            this.item(this.catalog.reference(item, field) as CatalogItem & { type: T })
        const use = <T extends ContentType>(field: string): UseItem<ItemOfType[T]> => {
            const target = this.catalog.reference(item, field) as (CatalogItem & { type: T }) | null
            return target ? { useDefault: false, item: this.item(target) } : { useDefault: true }
        }
        switch (item.type) {
            case 'post':
                return {
                    ...base,
                    version: 1,
                    time: fields.time ?? 0,
                    thumbnail: this.srl(resources.thumbnail),
                }
            case 'playlist':
                return {
                    ...base,
                    version: 1,
                    subtitle,
                    levels: this.catalog
                        .references(item, 'levels')
                        .map((level) => this.item(level as CatalogItem & { type: 'level' })),
                    thumbnail: this.srl(resources.thumbnail),
                }
            case 'level':
                return {
                    ...base,
                    version: 1,
                    rating: fields.rating,
                    artists: this.text(fields.artists),
                    engine: one<'engine'>('engine'),
                    useSkin: use<'skin'>('useSkin'),
                    useBackground: use<'background'>('useBackground'),
                    useEffect: use<'effect'>('useEffect'),
                    useParticle: use<'particle'>('useParticle'),
                    cover: srl('cover'),
                    bgm: srl('bgm'),
                    preview: this.srl(resources.preview),
                    data: srl('data'),
                }
            case 'skin':
                return {
                    ...base,
                    version: 4,
                    subtitle,
                    thumbnail: srl('thumbnail'),
                    data: srl('data'),
                    texture: srl('texture'),
                }
            case 'background':
                return {
                    ...base,
                    version: 2,
                    subtitle,
                    thumbnail: srl('thumbnail'),
                    data: srl('data'),
                    image: srl('image'),
                    configuration: srl('configuration'),
                }
            case 'effect':
                return {
                    ...base,
                    version: 5,
                    subtitle,
                    thumbnail: srl('thumbnail'),
                    data: srl('data'),
                    audio: srl('audio'),
                }
            case 'particle':
                return {
                    ...base,
                    version: 3,
                    subtitle,
                    thumbnail: srl('thumbnail'),
                    data: srl('data'),
                    texture: srl('texture'),
                }
            case 'engine':
                return {
                    ...base,
                    version: 13,
                    subtitle,
                    skin: one<'skin'>('skin'),
                    background: one<'background'>('background'),
                    effect: one<'effect'>('effect'),
                    particle: one<'particle'>('particle'),
                    thumbnail: srl('thumbnail'),
                    playData: srl('playData'),
                    watchData: srl('watchData'),
                    previewData: srl('previewData'),
                    tutorialData: srl('tutorialData'),
                    rom: this.srl(resources.rom),
                    configuration: srl('configuration'),
                }
            case 'replay':
                return {
                    ...base,
                    version: 1,
                    subtitle,
                    level: one<'level'>('level'),
                    data: srl('data'),
                    configuration: srl('configuration'),
                }
        }
    }
}
