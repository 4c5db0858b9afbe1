import { Refusal } from '../util/refusal.js'
import type { OptionDeclaration } from './server-settings.js'

/**
 * Thrown for a value a form cannot accept: an `invalid` refusal, kept a class of its own because
 * the web pages answer it with a page of their own rather than JSON.
 */
export class FormValueError extends Refusal {
    constructor(message: string) {
        super('invalid', message)
    }
}

/** A source of submitted values: a URL query or the `values` string of a submit body. */
export type FormInput = { get(query: string): string | undefined }

/** The value an option stands for when the app leaves it out (it sends only changed values). */
export const defaultValue = (option: OptionDeclaration): unknown => {
    switch (option.type) {
        case 'slider':
            return option.def ?? option.min ?? 0
        case 'toggle':
            return option.def ?? false
        case 'select':
            return option.def ?? option.values?.[0]?.name ?? ''
        case 'multi': {
            const flags = (option.def as boolean[] | undefined) ?? []
            return (option.values ?? []).filter((_, index) => flags[index]).map(({ name }) => name)
        }
        case 'serverItem':
            return option.def ?? null
        case 'serverItems':
            return option.def ?? []
        case 'collectionItem':
            return undefined
        default:
            return option.def ?? ''
    }
}

/**
 * Decodes one option's value as the protocol encodes it (§1.4). A missing value means the
 * option's default; a value the option cannot hold is refused with a message naming the option.
 */
export const decodeOption = (option: OptionDeclaration, input: FormInput): unknown => {
    const raw = input.get(option.query)
    if (raw === undefined) return defaultValue(option)
    const refuse = (expected: string): never => {
        throw new FormValueError(
            `option "${option.query}" expects ${expected}, got ${JSON.stringify(raw.length > 60 ? `${raw.slice(0, 60)}…` : raw)}`,
        )
    }
    const names = (option.values ?? []).map(({ name }) => name)
    switch (option.type) {
        case 'text':
        case 'textArea': {
            const limit = option.limit ?? 0
            if (limit > 0 && raw.length > limit) refuse(`at most ${limit} characters`)
            return raw
        }
        case 'slider': {
            const value = raw.trim() === '' ? NaN : Number(raw)
            const min = option.min ?? 0
            const max = option.max ?? 0
            if (!Number.isFinite(value) || value < min || value > max)
                refuse(`a number from ${min} to ${max}`)
            return value
        }
        case 'toggle':
            return raw !== '0' && raw !== 'false'
        case 'select':
            if (!names.includes(raw)) refuse(`one of ${names.join(', ')}`)
            return raw
        case 'multi': {
            const selected = raw === '' ? [] : raw.split(',')
            if (selected.some((name) => !names.includes(name)))
                refuse(`a comma-separated list of ${names.join(', ')}`)
            return selected
        }
        case 'serverItem':
        case 'serverItems':
        case 'collectionItem':
            return parseJson(raw) ?? refuse('JSON')
        case 'file':
            if (raw !== '' && !/^[0-9a-f]{40}$/.test(raw))
                refuse('the SHA-1 of a file (40 lowercase hex digits) or nothing')
            return raw
    }
}

const parseJson = (raw: string): unknown => {
    try {
        return JSON.parse(raw) as unknown
    } catch {
        return undefined
    }
}
