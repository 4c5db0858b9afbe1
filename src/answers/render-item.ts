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
 * Turns catalog items into the protocol's item records for one locale and one source address.
 * Nested items (a level's engine, the engine's skin…) are rendered once and shared, so a list of
 * levels using one engine costs one engine.
 */
export class ItemRenderer {
    private readonly rendered = new Map<CatalogItem, AnyItem>()
    private readonly users = new Map<Person, UserItem>()
    private readonly serialized = new LRUCache<CatalogItem, Buffer>({
        maxSize: serializedBudget,
        sizeCalculation: (json) => json.length,
    })

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
     * The item as JSON in UTF-8, for lists: a page is put together from its items' bytes rather
     * than serialized whole for each request. A list item is not kept rendered, only serialized.
     * Bytes, not a string: a page joined as a string is encoded to UTF-8 again for every request,
     * and one title in Japanese makes the whole page a string of two-byte characters, which
     * costs five times as much to join and encode (0.8 ms for a page of 20 levels).
     */
    itemJson(item: CatalogItem): Buffer {
        let json = this.serialized.get(item)
        if (json === undefined) {
            json = Buffer.from(JSON.stringify(this.rendered.get(item) ?? this.render(item)))
            this.serialized.set(item, json)
        }
        return json
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
