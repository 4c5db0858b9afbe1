import { get } from 'node:http'

/**
 * Asks the server, once it listens and before it says so, for what a client asks first: the
 * server's info, a list page (plain and compressed) and an item's details. The first of each
 * compiled its code and loaded what it uses (the router's matching, Koa's dispatch, the item's
 * render): 20–30 ms of CPU that the first requests after the listening line waited for, and every
 * request queued behind them with them. Asked over the loopback like any client, so that what is
 * warmed is what a request runs. A search is not asked: it would build its type's index at once
 * (a third of a second at 10,000 levels), which the server builds between requests after the
 * listening line instead. An answer that fails is no reason not to serve.
 */
export const warmUp = async (url: string, requests: readonly FirstRequest[]) => {
    for (const { path, encoding } of requests)
        await ask(`${url}${path}`, encoding).catch(() => undefined)
}

type FirstRequest = { path: string; encoding: string }

/** A start never waits long for its own answer (an address the loopback does not reach, say). */
const answerWithinMs = 2_000

const ask = (url: string, encoding: string) =>
    new Promise<void>((done, fail) => {
        const request = get(
            url,
            { headers: { 'accept-encoding': encoding }, timeout: answerWithinMs },
            (response) => {
                response.resume().on('end', done).on('error', fail)
            },
        )
        request.on('timeout', () => request.destroy(new Error('no answer in time')))
        request.on('error', fail)
    })

/**
 * The app names its language on every request, and a localized answer runs code of its own (6 ms
 * for the first list at 10,000 levels when only unlocalized ones were warmed).
 */
const asTheAppAsks = '?localization=en'

/** What a client asks first under the protocol name `name`, of a folder whose first level is `level`. */
export const firstRequests = (name: string, level: string | undefined): FirstRequest[] => [
    { path: `/${name}/info${asTheAppAsks}`, encoding: 'identity' },
    { path: `/${name}/levels/list${asTheAppAsks}`, encoding: 'identity' },
    { path: `/${name}/levels/list${asTheAppAsks}`, encoding: 'gzip, deflate, br' },
    ...(level
        ? [
              {
                  path: `/${name}/levels/${encodeURIComponent(level)}${asTheAppAsks}`,
                  encoding: 'identity',
              },
          ]
        : []),
]
