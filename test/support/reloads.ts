import type { ReloadReport } from '../../src/server.js'
import type { TestServer } from './server.js'

/** How long one change may take to be served before the test fails. */
const reloadDeadline = 5_000

/**
 * Performs `action` and resolves with the reload report that completes the change: the reports
 * since the action started must between them name every path of `covers` (a later report may
 * carry the rest of an event burst, such as the files of a folder that was just added). The
 * listener is attached before the action, so a fast reload cannot be missed.
 */
export const afterReload = async (
    running: TestServer,
    covers: readonly string[],
    action: () => Promise<unknown>,
    { deadline = reloadDeadline, what = 'the change' }: { deadline?: number; what?: string } = {},
) => {
    const seen: ReloadReport[] = []
    let listener: ((report: ReloadReport) => void) | undefined
    let timer: NodeJS.Timeout | undefined
    const stop = () => {
        clearTimeout(timer)
        if (listener) running.events.off('reload', listener)
    }
    const reloaded = new Promise<{ report: ReloadReport; reports: ReloadReport[] }>(
        (resolve, reject) => {
            listener = (report) => {
                seen.push(report)
                const paths = new Set(seen.flatMap((entry) => entry.paths))
                if (covers.every((path) => paths.has(path))) {
                    stop()
                    resolve({ report, reports: seen })
                }
            }
            running.events.on('reload', listener)
            timer = setTimeout(() => {
                stop()
                const paths = new Set(seen.flatMap((entry) => entry.paths))
                const missing = covers.filter((path) => !paths.has(path))
                reject(
                    new Error(
                        `${what}: no reload covering ${missing.slice(0, 5).join(', ')}${missing.length > 5 ? ` (and ${missing.length - 5} more)` : ''} within ${deadline} ms; ` +
                            `${seen.length} reload(s) seen, with paths: ${JSON.stringify(seen.map((entry) => entry.paths)).slice(0, 1000)}`,
                    ),
                )
            }, deadline)
        },
    )
    reloaded.catch(() => {}) // the rejection is awaited below; this only keeps an early one from counting as unhandled
    try {
        await action()
    } catch (error) {
        stop()
        throw error
    }
    return reloaded
}
