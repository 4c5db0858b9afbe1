/**
 * The nine kinds of content item a folder can hold, described once: where they live, which
 * resource files they carry and which other items they name.
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

/**
 * How a resource file is turned into served bytes when it has an extension. `levelData` is JSON
 * that may also be kept as a chart, which the level's engine package converts (src/charts/).
 */
export type ResourceKind = 'image' | 'audio' | 'json' | 'binary' | 'archive' | 'levelData'

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
    resources: ResourceRole[]
    references: ReferenceField[]
}

const required = (role: string, kind: ResourceKind): ResourceRole => ({
    role,
    kind,
    optional: false,
})
const optional = (role: string, kind: ResourceKind): ResourceRole => ({
    role,
    kind,
    optional: true,
})

/** Skins and particles are both a sprite atlas described by a data file. */
const atlasResources = [
    required('thumbnail', 'image'),
    required('data', 'json'),
    required('texture', 'image'),
]

/** Skins, backgrounds, effects and particles: resources, and no references to other items. */
const resourcePack = (type: ContentType, resources: ResourceRole[]): ContentTypeInfo => ({
    type,
    plural: `${type}s`,
    resources,
    references: [],
})

export const contentTypeInfos: Record<ContentType, ContentTypeInfo> = {
    post: {
        type: 'post',
        plural: 'posts',
        resources: [optional('thumbnail', 'image')],
        references: [],
    },
    playlist: {
        type: 'playlist',
        plural: 'playlists',
        resources: [optional('thumbnail', 'image')],
        references: [{ field: 'levels', target: 'level', shape: 'many' }],
    },
    level: {
        type: 'level',
        plural: 'levels',
        resources: [
            required('cover', 'image'),
            required('bgm', 'audio'),
            optional('preview', 'audio'),
            required('data', 'levelData'),
        ],
        references: [
            { field: 'engine', target: 'engine', shape: 'one' },
            { field: 'useSkin', target: 'skin', shape: 'use' },
            { field: 'useBackground', target: 'background', shape: 'use' },
            { field: 'useEffect', target: 'effect', shape: 'use' },
            { field: 'useParticle', target: 'particle', shape: 'use' },
        ],
    },
    skin: resourcePack('skin', atlasResources),
    background: resourcePack('background', [
        required('thumbnail', 'image'),
        required('data', 'json'),
        required('image', 'image'),
        required('configuration', 'json'),
    ]),
    effect: resourcePack('effect', [
        required('thumbnail', 'image'),
        required('data', 'json'),
        required('audio', 'archive'),
    ]),
    particle: resourcePack('particle', atlasResources),
    engine: {
        type: 'engine',
        plural: 'engines',
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
    },
    replay: {
        type: 'replay',
        plural: 'replays',
        resources: [required('data', 'json'), required('configuration', 'json')],
        references: [{ field: 'level', target: 'level', shape: 'one' }],
    },
}

/** Every type the protocol routes under `/{name}/{plural}/…`, including the two Shelf has no files for. */
export const protocolTypes = [...contentTypes, 'room', 'user'] as const
export type ProtocolType = (typeof protocolTypes)[number]

const typeByPlural = new Map<string, ProtocolType>(protocolTypes.map((type) => [`${type}s`, type]))

export const typeFromPlural = (plural: string): ProtocolType | undefined => typeByPlural.get(plural)

export const isContentType = (type: ProtocolType): type is ContentType =>
    (contentTypes as readonly string[]).includes(type)
