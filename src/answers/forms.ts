import type { ItemType, ServerForm, ServerOption, Sil } from '@sonolus/core'
import type { FormDeclaration, OptionDeclaration } from '../content/server-settings.js'
import type { ItemRenderer } from './render-item.js'
import type { RequestView } from './request-view.js'

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
export const renderForms = (
    forms: readonly FormDeclaration[],
    renderer: ItemRenderer,
): ServerForm[] => {
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
    const text = {
        placeholder: renderer.text(option.placeholder),
        limit: option.limit ?? 0,
        shortcuts: option.shortcuts ?? [],
    }
    const values = (option.values ?? []).map(({ name, title }) => ({
        name,
        title: renderer.text(title),
    }))
    switch (option.type) {
        case 'text':
            return { ...base, type: 'text', def: (option.def as string | undefined) ?? '', ...text }
        case 'textArea':
            return {
                ...base,
                type: 'textArea',
                def: (option.def as string | undefined) ?? '',
                ...text,
            }
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
            return {
                ...base,
                type: 'select',
                def: (option.def as string | undefined) ?? values[0]?.name ?? '',
                values,
            }
        case 'multi':
            return {
                ...base,
                type: 'multi',
                def: (option.def as boolean[] | undefined) ?? values.map(() => false),
                values,
            }
        case 'serverItem':
            return {
                ...base,
                ...itemPicker(option),
                type: 'serverItem',
                def: (option.def as Sil | null | undefined) ?? null,
            }
        case 'serverItems':
            return {
                ...base,
                ...itemPicker(option),
                type: 'serverItems',
                def: (option.def as Sil[] | undefined) ?? [],
                limit: option.limit ?? 0,
            }
        case 'collectionItem':
            return { ...base, type: 'collectionItem', itemType: option.itemType as ItemType }
        case 'file':
            return {
                ...base,
                type: 'file',
                def: (option.def as string | undefined) ?? '',
                validation: option.validation as never,
            }
    }
}

/** What the two server-item pickers share. */
const itemPicker = (option: OptionDeclaration) => ({
    itemType: option.itemType as ItemType,
    infoType: option.infoType,
    allowOtherServers: option.allowOtherServers ?? false,
})

/** The search forms offered: none by a static export, which could not answer them. */
export const offeredSearches = (view: RequestView, searches: readonly FormDeclaration[]) =>
    view.searchable ? renderForms(searches, view.renderer) : []
