import type { ServerLevelResultInfo } from '@sonolus/core'
import { renderForm } from './forms.js'
import type { RequestView } from './request-view.js'

/** E3: the forms the result screen offers, none on a read-only server. */
export const levelResultInfo = (view: RequestView, writable: boolean): ServerLevelResultInfo => ({
    submits: writable
        ? view.catalog.settings.types.level.results.map((form) => renderForm(form, view.renderer))
        : [],
})
