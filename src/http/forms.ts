import type { ItemType, ServerForm, ServerOption, Sil } from '@sonolus/core'
import type { FormDeclaration, OptionDeclaration } from '../content/server-settings.js'
import type { ItemRenderer } from '../catalog/render-item.js'

/** Thrown for a value a form cannot accept; the HTTP layer answers 400 with this message. */
export class FormValueError extends Error {}

/** A form or option as the app receives it: localized, with Shelf's annotations removed. */
export const renderForm = (form: FormDeclaration, renderer: ItemRenderer): ServerForm => ({
    type: form.type,
    title: renderer.text(form.title),
    icon: form.icon,
    description: renderer.optionalText(form.description),
    help: renderer.optionalText(form.help),
    requireConfirmation: form.requireConfirmation ?? false,
    options: (form.options ?? []).map((option) => renderOption(option, renderer)),
})

const renderedForms = new WeakMap<ItemRenderer, WeakMap<readonly FormDeclaration[], ServerForm[]>>()

/**
 * A list of forms rendered once per renderer (one snapshot, locale and source): the search forms
 * go out with every page of a list, searches included.
 */
export const renderForms = (forms: readonly FormDeclaration[], renderer: ItemRenderer): ServerForm[] => {
    let byForms = renderedForms.get(renderer)
    if (!byForms) renderedForms.set(renderer, (byForms = new WeakMap()))
    let rendered = byForms.get(forms)
    if (!rendered) byForms.set(forms, (rendered = forms.map((form) => renderForm(form, renderer))))
    return rendered
}

export const renderOption = (option: OptionDeclaration, renderer: ItemRenderer): ServerOption => {
    const base = {
        query: option.query,
        name: renderer.text(option.name),
        description: renderer.optionalText(option.description),
        required: option.required ?? false,
    }
    const text = { placeholder: renderer.text(option.placeholder), limit: option.limit ?? 0, shortcuts: option.shortcuts ?? [] }
    const values = (option.values ?? []).map(({ name, title }) => ({ name, title: renderer.text(title) }))
    switch (option.type) {
        case 'text':
            return { ...base, type: 'text', def: (option.def as string | undefined) ?? '', ...text }
        case 'textArea':
            return { ...base, type: 'textArea', def: (option.def as string | undefined) ?? '', ...text }
        case 'slider':
            return {
                ...base,
                type: 'slider',
                def: (option.def as number | undefined) ?? option.min ?? 0,
                min: option.min ?? 0,
                max: option.max ?? 0,
                step: option.step ?? 1,
                unit: renderer.optionalText(option.unit),
            }
        case 'toggle':
            return { ...base, type: 'toggle', def: (option.def as boolean | undefined) ?? false }
        case 'select':
            return { ...base, type: 'select', def: (option.def as string | undefined) ?? values[0]?.name ?? '', values }
        case 'multi':
            return { ...base, type: 'multi', def: (option.def as boolean[] | undefined) ?? values.map(() => false), values }
        case 'serverItem':
            return { ...base, ...itemPicker(option), type: 'serverItem', def: (option.def as Sil | null | undefined) ?? null }
        case 'serverItems':
            return { ...base, ...itemPicker(option), type: 'serverItems', def: (option.def as Sil[] | undefined) ?? [], limit: option.limit ?? 0 }
        case 'collectionItem':
            return { ...base, type: 'collectionItem', itemType: option.itemType as ItemType }
        case 'file':
            return { ...base, type: 'file', def: (option.def as string | undefined) ?? '', validation: option.validation as never }
    }
}

/** What the two server-item pickers share. */
const itemPicker = (option: OptionDeclaration) => ({
    itemType: option.itemType as ItemType,
    infoType: option.infoType,
    allowOtherServers: option.allowOtherServers ?? false,
})

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
        throw new FormValueError(`option "${option.query}" expects ${expected}, got ${JSON.stringify(raw.length > 60 ? `${raw.slice(0, 60)}…` : raw)}`)
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
            if (!Number.isFinite(value) || value < min || value > max) refuse(`a number from ${min} to ${max}`)
            return value
        }
        case 'toggle':
            return raw !== '0' && raw !== 'false'
        case 'select':
            if (!names.includes(raw)) refuse(`one of ${names.join(', ')}`)
            return raw
        case 'multi': {
            const selected = raw === '' ? [] : raw.split(',')
            if (selected.some((name) => !names.includes(name))) refuse(`a comma-separated list of ${names.join(', ')}`)
            return selected
        }
        case 'serverItem':
        case 'serverItems':
        case 'collectionItem':
            return parseJson(raw) ?? refuse('JSON')
        case 'file':
            if (raw !== '' && !/^[0-9a-f]{40}$/.test(raw)) refuse('the SHA-1 of a file (40 lowercase hex digits) or nothing')
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
