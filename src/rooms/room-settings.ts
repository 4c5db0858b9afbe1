import type { FormDeclaration } from '../content/server-settings.js'
import { decodeOption, FormValueError, type FormInput } from '../content/form-values.js'
import type { RoomSettings } from './room-registry.js'

/** The room form when server.yaml declares none: a room named by its creator. */
const defaultRoomForm: FormDeclaration = {
    type: 'room',
    title: '#ROOM',
    options: [
        {
            query: 'title',
            type: 'text',
            name: '#TITLE',
            placeholder: '#ROOM_PLACEHOLDER',
            limit: 64,
        },
    ],
}

/** The forms a new room is set up with (`rooms.creates` in server.yaml). */
export const roomCreateForms = (declared: FormDeclaration[]) =>
    declared.length ? declared : [defaultRoomForm]

/**
 * The settings of a new room from the creator's join: `type=<form>` names one of the create
 * forms, and its options are decoded as every form's are (defaults for what the app leaves out).
 */
export const roomSettingsFrom = (forms: FormDeclaration[], input: FormInput): RoomSettings => {
    const type = input.get('type')
    const known = forms.map((form) => form.type).join(', ')
    if (!type)
        throw new FormValueError(
            `creating a room needs the values of its create form in the query: type=<form> (one of ${known}) and its options`,
        )
    const form = forms.find((candidate) => candidate.type === type)
    if (!form) throw new FormValueError(`no room create form "${type}": this server has ${known}`)
    const options = form.options ?? []
    const sent = options.flatMap((option) => {
        const raw = input.get(option.query)
        return raw === undefined ? [] : [[option.query, raw]]
    })
    return {
        form,
        settings: options.map((option) => ({ option, value: decodeOption(option, input) })),
        values: new URLSearchParams([['type', type], ...sent]).toString(),
    }
}
