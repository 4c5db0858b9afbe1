import { protocolTypes } from './item-types.js'
import type { OptionDeclaration } from './server-settings.js'
import type { SchemaIssue } from './validate.js'

/**
 * What a JSON Schema cannot say about server.yaml: rules across fields, such as a select's
 * default being one of its values, or query names staying unique across every form.
 */
export const checkSettings = (raw: Record<string, unknown>): SchemaIssue[] => {
    const issues: SchemaIssue[] = []
    const configuration = ((raw.configuration as { options?: OptionDeclaration[] } | undefined)?.options ?? []).map(
        (option, index) => [option, ['configuration', 'options', index]] as const,
    )
    issues.push(...configuration.flatMap(([option, path]) => checkOption(option, path)))
    const configurationQueries = new Set(configuration.map(([option]) => option.query))
    issues.push(...duplicates(configuration))

    for (const type of protocolTypes) {
        const settings = raw[`${type}s`] as { searches?: Form[]; creates?: Form[]; sections?: { search?: string }[] } | undefined
        const searches = settings?.searches ?? []
        for (const kind of ['searches', 'creates'] as const) {
            settings?.[kind]?.forEach((form, formIndex) => {
                const options = (form.options ?? []).map((option, index) => [option, [`${type}s`, kind, formIndex, 'options', index]] as const)
                issues.push(...options.flatMap(([option, path]) => checkOption(option, path)))
                issues.push(...duplicates(options))
                for (const [option, path] of options) {
                    if (configurationQueries.has(option.query)) {
                        issues.push({ path: [...path, 'query'], message: `"${option.query}" is also a configuration option's query: the app sends both in one query string, so rename one` })
                    }
                }
            })
        }
        settings?.sections?.forEach((section, index) => {
            const formType = section.search === undefined ? undefined : new URLSearchParams(section.search).get('type')
            if (formType && formType !== 'quick' && !searches.some((form) => form.type === formType)) {
                issues.push({ path: [`${type}s`, 'sections', index, 'search'], message: `no search form of type "${formType}" in ${type}s.searches` })
            }
        })
    }
    return issues
}

type Form = { type: string; options?: OptionDeclaration[] }

const checkOption = (option: OptionDeclaration, path: readonly (string | number)[]): SchemaIssue[] => {
    const issues: SchemaIssue[] = []
    const names = (option.values ?? []).map(({ name }) => name)
    if (option.type === 'select' && option.def !== undefined && !names.includes(String(option.def))) {
        issues.push({ path: [...path, 'def'], message: `"${String(option.def)}" is not one of the values (${names.join(', ')})` })
    }
    if (option.type === 'select' && option.ignore !== undefined && !names.includes(option.ignore)) {
        issues.push({ path: [...path, 'ignore'], message: `"${option.ignore}" is not one of the values (${names.join(', ')})` })
    }
    if (option.type === 'multi' && Array.isArray(option.def) && option.def.length !== names.length) {
        issues.push({ path: [...path, 'def'], message: `has ${option.def.length} flags for ${names.length} values: give one per value` })
    }
    if (option.type === 'slider' && typeof option.def === 'number' && (option.def < (option.min ?? 0) || option.def > (option.max ?? 0))) {
        issues.push({ path: [...path, 'def'], message: `${option.def} is outside min ${option.min} and max ${option.max}` })
    }
    return issues
}

const duplicates = (options: readonly (readonly [OptionDeclaration, readonly (string | number)[]])[]): SchemaIssue[] =>
    options
        .filter(([option], index) => options.findIndex(([other]) => other.query === option.query) !== index)
        .map(([option, path]) => ({ path: [...path, 'query'], message: `the query "${option.query}" is used twice in one form` }))
