import { formatProblem } from '../content/problems.js'
import { layoutData, type PageRequest } from './page-frame.js'
import { renderTemplate } from './templates.js'

/** The problems of the content being served: the same data as `/_shelf/problems`, for people. */
export const problemsPage = (request: PageRequest, path: string, allowed: boolean) => {
    const { t, catalog } = request
    return renderTemplate('problems', {
        ...layoutData(request, path, {}),
        // The banner leads here: on this page it would link to itself.
        problemsBanner: undefined,
        frame: {
            lang: request.page.locale,
            title: t.problems,
            canonical: `${request.source}${path}`,
            ogType: 'website',
            noIndex: true,
        },
        allowed,
        problems: allowed
            ? catalog.problems.map((problem) => ({
                  ...problem,
                  position:
                      problem.line === undefined
                          ? ''
                          : `${problem.line}${problem.column === undefined ? '' : `:${problem.column}`}`,
                  text: formatProblem(problem),
              }))
            : [],
    })
}

/** A page for an address that shows nothing, with the way home. */
export const notFoundPage = (request: PageRequest, path: string, message?: string) =>
    renderTemplate('not-found', {
        ...layoutData(request, path, {}),
        frame: {
            lang: request.page.locale,
            title: request.t.notFound,
            canonical: `${request.source}${path}`,
            ogType: 'website',
            noIndex: true,
        },
        message: message ?? request.t.notFoundMessage,
    })
