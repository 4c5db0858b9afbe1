/**
 * The nine kinds of content item a folder can hold, described once: where they live, which format
 * version the app expects, which resource files they carry and which other items they name.
 * Everything that walks, validates or renders items reads this table instead of repeating it.
 */

export const contentTypes = [
    'post',
    'playlist',
    'level',
    'skin',
    'background',
    'effect',
    'particle',
    'engine',
    'replay',
] as const

export type ContentType = (typeof contentTypes)[number]

/** How a resource file is turned into served bytes when it has an extension. */
export type ResourceKind = 'image' | 'audio' | 'json' | 'binary' | 'archive'

export type ResourceRole = {
    role: string
    kind: ResourceKind
    optional: boolean
}

/** A field naming another item: `engine: my-engine`, `useSkin: { useDefault: false, item: x }`. */
export type ReferenceField = {
    field: string
    target: ContentType
    /** `many`: a list of names (playlist levels); `use`: a UseItem that may defer to the engine. */
    shape: 'one' | 'many' | 'use'
}

export type ContentTypeInfo = {
    type: ContentType
    plural: `${ContentType}s`
    version: number
    resources: ResourceRole[]
    references: ReferenceField[]
    /** Text fields beyond title/author that the record type has (empty string when absent). */
    texts: ('subtitle' | 'artists')[]
}

const required = (role: string, kind: ResourceKind): ResourceRole => ({ role, kind, optional: false })
const optional = (role: string, kind: ResourceKind): ResourceRole => ({ role, kind, optional: true })

export const contentTypeInfos: Record<ContentType, ContentTypeInfo> = {
    post: {
        type: 'post',
        plural: 'posts',
        version: 1,
        resources: [optional('thumbnail', 'image')],
        references: [],
        texts: [],
    },
    playlist: {
        type: 'playlist',
        plural: 'playlists',
        version: 1,
        resources: [optional('thumbnail', 'image')],
        references: [{ field: 'levels', target: 'level', shape: 'many' }],
        texts: ['subtitle'],
    },
    level: {
        type: 'level',
        plural: 'levels',
        version: 1,
        resources: [
            required('cover', 'image'),
            required('bgm', 'audio'),
            optional('preview', 'audio'),
            required('data', 'json'),
        ],
        references: [
            { field: 'engine', target: 'engine', shape: 'one' },
            { field: 'useSkin', target: 'skin', shape: 'use' },
            { field: 'useBackground', target: 'background', shape: 'use' },
            { field: 'useEffect', target: 'effect', shape: 'use' },
            { field: 'useParticle', target: 'particle', shape: 'use' },
        ],
        texts: ['artists'],
    },
    skin: {
        type: 'skin',
        plural: 'skins',
        version: 4,
        resources: [required('thumbnail', 'image'), required('data', 'json'), required('texture', 'image')],
        references: [],
        texts: ['subtitle'],
    },
    background: {
        type: 'background',
        plural: 'backgrounds',
        version: 2,
        resources: [
            required('thumbnail', 'image'),
            required('data', 'json'),
            required('image', 'image'),
            required('configuration', 'json'),
        ],
        references: [],
        texts: ['subtitle'],
    },
    effect: {
        type: 'effect',
        plural: 'effects',
        version: 5,
        resources: [required('thumbnail', 'image'), required('data', 'json'), required('audio', 'archive')],
        references: [],
        texts: ['subtitle'],
    },
    particle: {
        type: 'particle',
        plural: 'particles',
        version: 3,
        resources: [required('thumbnail', 'image'), required('data', 'json'), required('texture', 'image')],
        references: [],
        texts: ['subtitle'],
    },
    engine: {
        type: 'engine',
        plural: 'engines',
        version: 13,
        resources: [
            required('thumbnail', 'image'),
            required('playData', 'json'),
            required('watchData', 'json'),
            required('previewData', 'json'),
            required('tutorialData', 'json'),
            optional('rom', 'binary'),
            required('configuration', 'json'),
        ],
        references: [
            { field: 'skin', target: 'skin', shape: 'one' },
            { field: 'background', target: 'background', shape: 'one' },
            { field: 'effect', target: 'effect', shape: 'one' },
            { field: 'particle', target: 'particle', shape: 'one' },
        ],
        texts: ['subtitle'],
    },
    replay: {
        type: 'replay',
        plural: 'replays',
        version: 1,
        resources: [required('data', 'json'), required('configuration', 'json')],
        references: [{ field: 'level', target: 'level', shape: 'one' }],
        texts: ['subtitle'],
    },
}

/** Every type the protocol routes under `/{name}/{plural}/…`, including the two Shelf has no files for. */
export const protocolTypes = [...contentTypes, 'room', 'user'] as const
export type ProtocolType = (typeof protocolTypes)[number]

const typeByPlural = new Map<string, ProtocolType>(protocolTypes.map((type) => [`${type}s`, type]))

export const typeFromPlural = (plural: string): ProtocolType | undefined => typeByPlural.get(plural)

export const isContentType = (type: ProtocolType): type is ContentType =>
    (contentTypes as readonly string[]).includes(type)
