import type { ServiceUserProfile } from '@sonolus/core'

const text = { type: 'string' } as const
const profileFields = [
    'id',
    'handle',
    'name',
    'avatarType',
    'avatarForegroundType',
    'avatarForegroundColor',
    'avatarBackgroundType',
    'avatarBackgroundColor',
    'bannerType',
    'aboutMe',
] as const satisfies readonly Exclude<keyof ServiceUserProfile, 'favorites'>[]

/**
 * The shape both signed bodies share. `type` is only required to be a string here: a body of the
 * wrong kind is well-formed, and is refused as a failed check (401) rather than as malformed (400).
 */
export const signedShape = {
    $id: 'signed-request',
    type: 'object',
    required: ['type', 'address', 'time', 'userProfile'],
    properties: {
        type: text,
        address: text,
        time: { type: 'number' },
        room: text,
        userProfile: {
            type: 'object',
            required: [...profileFields, 'favorites'],
            properties: {
                ...Object.fromEntries(profileFields.map((field) => [field, text])),
                favorites: { type: 'array', items: text },
            },
        },
    },
}

/** The name the build's precompiled validators export it under. */
export const signedShapeExport = 'signed_request'
