import {
    contentTypeInfos,
    isContentType,
    protocolTypes,
    type ContentType,
    type ProtocolType,
} from './item-types.js'
import { actionFormTypes, type OptionDeclaration } from './server-settings.js'
import type { SchemaIssue } from './validate.js'

/**
 * What a JSON Schema cannot say about server.yaml: rules across fields, such as a select's
 * default being one of its values, query names staying unique across every form, or a create
 * form giving every file its type needs.
 */
export const checkSettings = (raw: Record<string, unknown>): SchemaIssue[] => {
    const issues: SchemaIssue[] = []
    const configuration = (
        (raw.configuration as { options?: OptionDeclaration[] } | undefined)?.options ?? []
    ).map((option, index) => [option, ['configuration', 'options', index]] as const)
    issues.push(...configuration.flatMap(([option, path]) => checkOption(option, path)))
    const configurationQueries = new Set(configuration.map(([option]) => option.query))
    issues.push(...duplicates(configuration))

    for (const type of protocolTypes) {
        const settings = raw[`${type}s`] as TypeForms | undefined
        const searches = settings?.searches ?? []
        for (const kind of formKinds) {
            settings?.[kind]?.forEach((form, formIndex) => {
                const options = (form.options ?? []).map(
                    (option, index) =>
                        [option, [`${type}s`, kind, formIndex, 'options', index]] as const,
                )
                issues.push(...options.flatMap(([option, path]) => checkOption(option, path)))
                issues.push(...duplicates(options))
                // A search's values and a new room's settings share the query string with the configuration's.
                if (kind !== 'searches' && kind !== 'creates') return
                for (const [option, path] of options) {
                    if (configurationQueries.has(option.query)) {
                        issues.push({
                            path: [...path, 'query'],
                            message: `"${option.query}" is also a configuration option's query: the app sends both in one query string, so rename one`,
                        })
                    }
                }
            })
        }
        settings?.sections?.forEach((section, index) => {
            const formType =
                section.search === undefined
                    ? undefined
                    : new URLSearchParams(section.search).get('type')
            if (
                formType &&
                formType !== 'quick' &&
                !searches.some((form) => form.type === formType)
            ) {
                issues.push({
                    path: [`${type}s`, 'sections', index, 'search'],
                    message: `no search form of type "${formType}" in ${type}s.searches`,
                })
            }
        })
        if (settings) issues.push(...checkWriteForms(type, settings))
    }
    return issues
}

type Form = { type: string; options?: OptionDeclaration[] }

const formKinds = [
    'searches',
    'creates',
    'actions',
    'community',
    'commentActions',
    'results',
] as const
type FormKind = (typeof formKinds)[number]
type TypeForms = Partial<Record<FormKind, Form[]>> & { sections?: { search?: string }[] }
type Path = (string | number)[]

/** Forms a type may declare but Shelf never shows, and why. */
const unusedForms = (type: ProtocolType): Partial<Record<FormKind, string>> => {
    const unused: Partial<Record<FormKind, string>> = {}
    if (type !== 'level')
        unused.results = `only levels have a result screen, so ${type}s.results is never shown: declare the forms in levels.results`
    if (type === 'room') {
        for (const kind of ['actions', 'community', 'commentActions'] as const) {
            unused[kind] =
                `rooms are kept by the server, not in the folder, and have no item actions, community or comments in Shelf, so rooms.${kind} is never shown`
        }
    }
    if (type === 'user') {
        for (const kind of ['creates', 'actions', 'community', 'commentActions'] as const) {
            unused[kind] =
                `Shelf has no user items to make or act on, so users.${kind} is never shown`
        }
    }
    return unused
}

/** What each form type Shelf knows does, per kind of form: the messages list them. */
const formTypeMeanings: {
    [K in keyof typeof actionFormTypes]: {
        what: string
        meanings: Record<(typeof actionFormTypes)[K][number], string>
    }
} = {
    actions: {
        what: 'an item action',
        meanings: {
            delete: 'removes the item and its files',
            edit: 'sets the fields and files its options name',
        },
    },
    community: {
        what: 'a community action',
        meanings: { comment: 'posts its "content" option as a comment' },
    },
    commentActions: { what: 'a comment action', meanings: { delete: 'removes the comment' } },
}

/** The forms through which players write: their types, and the options those types need. */
const checkWriteForms = (type: ProtocolType, settings: TypeForms): SchemaIssue[] => {
    const issues: SchemaIssue[] = []
    const plural = `${type}s`
    const unused = unusedForms(type)
    for (const kind of formKinds) {
        const message = unused[kind]
        if (message && settings[kind]?.length) issues.push({ path: [plural, kind], message })
    }
    if (!isContentType(type)) return issues

    for (const kind of ['actions', 'community', 'commentActions'] as const) {
        const { what, meanings } = formTypeMeanings[kind]
        const known = Object.entries(meanings).map(([name, meaning]) => `"${name}" (${meaning})`)
        settings[kind]?.forEach((form, index) => {
            if (!(actionFormTypes[kind] as readonly string[]).includes(form.type)) {
                issues.push({
                    path: [plural, kind, index, 'type'],
                    message: `"${form.type}" is not ${what} Shelf can do, so the form is left out: Shelf knows ${listOf(known)}`,
                })
            }
        })
    }
    settings.community?.forEach((form, index) => {
        if (form.type === 'comment')
            issues.push(...checkCommentForm(form, [plural, 'community', index]))
    })
    settings.creates?.forEach((form, index) => {
        const path = [plural, 'creates', index]
        issues.push(...checkRequiredFiles(type, form, path), ...checkFieldOptions(type, form, path))
    })
    settings.actions?.forEach((form, index) => {
        if (form.type === 'edit')
            issues.push(...checkFieldOptions(type, form, [plural, 'actions', index]))
    })
    return issues
}

/** The text of a comment is the value of its form's `content` option. */
const checkCommentForm = (form: Form, path: Path): SchemaIssue[] => {
    const index = (form.options ?? []).findIndex((option) => option.query === 'content')
    if (index === -1) {
        return [
            {
                path: form.options ? [...path, 'options'] : path,
                message:
                    'a "comment" form needs an option with query "content", of type textArea or text: its value is the text of the comment',
            },
        ]
    }
    const option = form.options![index]!
    if (option.type !== 'textArea' && option.type !== 'text') {
        return [
            {
                path: [...path, 'options', index, 'type'],
                message: `"content" is the text of the comment, so it must be a textArea or text option, not ${option.type}`,
            },
        ]
    }
    return []
}

/** A create form must give every file the type cannot do without, or every create is refused. */
const checkRequiredFiles = (type: ContentType, form: Form, path: Path): SchemaIssue[] => {
    const given = new Set(
        (form.options ?? [])
            .filter((option) => option.type === 'file')
            .map((option) => option.query),
    )
    const required = contentTypeInfos[type].resources
        .filter(({ optional }) => !optional)
        .map(({ role }) => role)
    const missing = required.filter((role) => !given.has(role))
    if (!missing.length) return []
    return [
        {
            path: form.options ? [...path, 'options'] : path,
            message: `no file option for ${listOf(missing.map((role) => `"${role}"`))}: ${article(type)} ${type} needs ${listOf(required)}, each from a file option whose query is that name, or every create is refused`,
        },
    ]
}

/**
 * Text fields a create or edit option fills by its query whichever the type, and the types that
 * have them (schemas/<type>.schema.json): elsewhere the written record would not load.
 */
const typedTextFields: Record<string, readonly ContentType[]> = {
    subtitle: ['playlist', 'skin', 'background', 'effect', 'particle', 'engine', 'replay'],
    artists: ['level'],
}

/**
 * How a create or edit form's options land in the item: files by their resource role, so a file
 * option named otherwise gives nothing and a role is only given by a file; and text fields the
 * type must have.
 */
const checkFieldOptions = (type: ContentType, form: Form, path: Path): SchemaIssue[] => {
    const roles = contentTypeInfos[type].resources.map(({ role }) => role)
    return (form.options ?? []).flatMap((option, index): SchemaIssue[] => {
        const typed = typedTextFields[option.query]
        if (option.type !== 'file' && typed && !typed.includes(type)) {
            return [
                {
                    path: [...path, 'options', index, 'query'],
                    message: `${type}s have no "${option.query}" field, yet Shelf writes this option into item.yaml as one, and ${article(type)} ${type} with it does not load: name it otherwise to keep it in meta (${option.query} is a field of ${listOf(typed.map((other) => `${other}s`))})`,
                },
            ]
        }
        if (option.type === 'file' && !roles.includes(option.query)) {
            return [
                {
                    path: [...path, 'options', index, 'query'],
                    message: `"${option.query}" is not a file ${article(type)} ${type} has, so the file would be ignored: ${type}s have ${listOf(roles)}`,
                },
            ]
        }
        if (option.type !== 'file' && roles.includes(option.query)) {
            return [
                {
                    path: [...path, 'options', index, 'type'],
                    message: `"${option.query}" is a file of ${type}s, which only a file option gives: the value of this ${option.type} option would go into meta.${option.query}`,
                },
            ]
        }
        if (option.charts?.length)
            return checkChartOption(type, option, [...path, 'options', index])
        return []
    })
}

/** Charts are a level's data, and the app sends a chart only for a file it does not check as LevelData. */
const checkChartOption = (
    type: ContentType,
    option: OptionDeclaration,
    path: Path,
): SchemaIssue[] => {
    const role = contentTypeInfos[type].resources.find((resource) => resource.role === option.query)
    if (role?.kind !== 'levelData')
        return [
            {
                path: [...path, 'charts'],
                message: `only a level's "data" option takes charts: this option's files are kept as ${type}s' "${option.query}"`,
            },
        ]
    if (option.validation?.type === 'levelData')
        return [
            {
                path: [...path, 'validation', 'type'],
                message:
                    'the app checks a levelData file itself and refuses a chart before sending it: give this option validation: { type: file }',
            },
        ]
    return []
}

const article = (word: string) => (/^[aeiou]/.test(word) ? 'an' : 'a')

/** `a`, `a and b`, `a, b and c`. */
const listOf = (words: string[]) =>
    words.length < 2 ? words.join('') : `${words.slice(0, -1).join(', ')} and ${words.at(-1)}`

const checkOption = (
    option: OptionDeclaration,
    path: readonly (string | number)[],
): SchemaIssue[] => {
    const issues: SchemaIssue[] = []
    const names = (option.values ?? []).map(({ name }) => name)
    if (
        option.type === 'select' &&
        option.def !== undefined &&
        !names.includes(String(option.def))
    ) {
        issues.push({
            path: [...path, 'def'],
            message: `"${String(option.def)}" is not one of the values (${names.join(', ')})`,
        })
    }
    if (option.type === 'select' && option.ignore !== undefined && !names.includes(option.ignore)) {
        issues.push({
            path: [...path, 'ignore'],
            message: `"${option.ignore}" is not one of the values (${names.join(', ')})`,
        })
    }
    if (
        option.type === 'multi' &&
        Array.isArray(option.def) &&
        option.def.length !== names.length
    ) {
        issues.push({
            path: [...path, 'def'],
            message: `has ${option.def.length} flags for ${names.length} values: give one per value`,
        })
    }
    if (
        option.type === 'slider' &&
        typeof option.def === 'number' &&
        (option.def < (option.min ?? 0) || option.def > (option.max ?? 0))
    ) {
        issues.push({
            path: [...path, 'def'],
            message: `${option.def} is outside min ${option.min} and max ${option.max}`,
        })
    }
    return issues
}

const duplicates = (
    options: readonly (readonly [OptionDeclaration, readonly (string | number)[]])[],
): SchemaIssue[] =>
    options
        .filter(
            ([option], index) =>
                options.findIndex(([other]) => other.query === option.query) !== index,
        )
        .map(([option, path]) => ({
            path: [...path, 'query'],
            message: `the query "${option.query}" is used twice in one form`,
        }))
