/**
 * A signed-in test player speaking the submit → upload handshake (PROTOCOL.md §2.3), with a
 * keypair made for the test.
 */
import * as assert from 'uvu/assert'
import type { TestServer } from './server.js'
import { authenticateBody, postSigned, signed, testProfile, type TestSigner } from './signing.js'

export type Answer<T = Record<string, unknown>> = {
    status: number
    headers: Headers
    body: T & { message?: string }
}

export const answerOf = async <T>(response: Response): Promise<Answer<T>> => ({
    status: response.status,
    headers: response.headers,
    body: (await response.json()) as T & { message?: string },
})

export type SubmitAnswer = Answer<{ key: string; hashes: string[] } & Record<string, unknown>>

export type Player = {
    id: string
    session: string
    submit(
        path: string,
        values: Record<string, string>,
        extra?: Record<string, unknown>,
    ): Promise<SubmitAnswer>
    upload(path: string, key: string, files: Buffer[]): Promise<Answer>
    get<T>(path: string): Promise<Answer<T>>
}

/** `target` may be a getter: the player's session outlives a restart of a server that keeps its secret. */
/** What a player needs of a server: where it listens, and its protocol root. */
type Reachable = Pick<TestServer, 'url' | 'root'>

export const signInPlayer = async (
    target: Reachable | (() => Reachable),
    signer: TestSigner,
    id: string,
    name: string,
    handle?: string,
): Promise<Player> => {
    const current = typeof target === 'function' ? target : () => target
    const server = current()
    const signIn = await answerOf<{ session: string }>(
        await postSigned(
            `${server.root}/authenticate`,
            await signed(signer, authenticateBody(server.url, testProfile(id, name, handle))),
        ),
    )
    assert.is(signIn.status, 200, signIn.body.message)
    const session = signIn.body.session
    return {
        id,
        session,
        submit: async (path, values, extra = {}) =>
            answerOf(
                await fetch(`${current().root}${path}`, {
                    method: 'POST',
                    headers: { 'Content-Type': 'application/json', 'Service-Session': session },
                    body: JSON.stringify({
                        values: new URLSearchParams(values).toString(),
                        ...extra,
                    }),
                }),
            ),
        upload: (path, key, files) => uploadFiles(current(), path, key, files, session),
        get: async <T>(path: string) =>
            answerOf<T>(
                await fetch(`${current().root}${path}`, {
                    headers: { 'Service-Session': session },
                }),
            ),
    }
}

/** A multipart upload as the app sends it: one `files` part per file, named by its hash. */
export const uploadFiles = async (
    server: Reachable,
    path: string,
    key: string | undefined,
    files: Buffer[],
    session?: string,
): Promise<Answer> => {
    const form = new FormData()
    for (const file of files) form.append('files', new Blob([new Uint8Array(file)]), 'file')
    const headers: Record<string, string> = {}
    if (key !== undefined) headers['Service-Upload-Key'] = key
    if (session !== undefined) headers['Service-Session'] = session
    return answerOf<Record<string, unknown>>(
        await fetch(`${server.root}${path}`, { method: 'POST', headers, body: form }),
    )
}
