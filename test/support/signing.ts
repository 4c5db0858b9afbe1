/**
 * A throwaway signing keypair standing in for the app's (never a key in the repository), and
 * signed requests made with it, byte for byte as the app sends them (PROTOCOL.md §5.5).
 */
import type { ServiceUserProfile } from '@sonolus/core'
import { webcrypto } from 'node:crypto'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { temporaryFolder } from './server.js'

const { subtle } = webcrypto
const algorithm = { name: 'ECDSA', namedCurve: 'P-256' } as const

export type TestSigner = {
    /** A JWK file of the public half, for --signature-key. */
    publicKeyFile: string
    sign(body: Buffer): Promise<string>
}

export const createTestSigner = async (): Promise<TestSigner> => {
    const pair = await subtle.generateKey(algorithm, true, ['sign', 'verify'])
    const folder = await temporaryFolder('shelf-key-')
    const publicKeyFile = join(folder, 'public.jwk.json')
    await writeFile(publicKeyFile, JSON.stringify(await subtle.exportKey('jwk', pair.publicKey)))
    return {
        publicKeyFile,
        sign: async (body) =>
            Buffer.from(
                await subtle.sign({ name: 'ECDSA', hash: 'SHA-256' }, pair.privateKey, body),
            ).toString('base64'),
    }
}

export const testProfile = (id: string, name = 'Tester', handle = '1000'): ServiceUserProfile =>
    ({
        id,
        handle,
        name,
        avatarType: 'default',
        avatarForegroundType: 'player',
        avatarForegroundColor: '#ffffffff',
        avatarBackgroundType: 'default',
        avatarBackgroundColor: '#000020ff',
        bannerType: 'default',
        aboutMe: '',
        favorites: [],
    }) as unknown as ServiceUserProfile

export type SignedRequest = { body: Buffer; signature: string }

/** The exact bytes of a signed body and their signature. */
export const signed = async (
    signer: TestSigner,
    body: Record<string, unknown>,
): Promise<SignedRequest> => {
    const bytes = Buffer.from(JSON.stringify(body), 'utf8')
    return { body: bytes, signature: await signer.sign(bytes) }
}

export const authenticateBody = (
    address: string,
    profile: ServiceUserProfile,
    time = Date.now(),
) => ({ type: 'authenticateServer', address, time, userProfile: profile })

export const joinRoomBody = (
    address: string,
    room: string,
    profile: ServiceUserProfile,
    time = Date.now(),
) => ({
    type: 'authenticateMultiplayer',
    address,
    room,
    time,
    userProfile: profile,
})

/** POSTs bytes unchanged, with the signature and any other headers. */
export const postSigned = (
    url: string,
    request: SignedRequest,
    headers: Record<string, string> = {},
    signatureHeader = 'Service-Signature',
) =>
    fetch(url, {
        method: 'POST',
        headers: {
            'Content-Type': 'application/json',
            [signatureHeader]: request.signature,
            ...headers,
        },
        body: new Uint8Array(request.body),
    })
