import { getSignaturePublicKey } from '@sonolus/core'
import { readFile } from 'node:fs/promises'
import { webcrypto } from 'node:crypto'

export const signatureAlgorithm = { name: 'ECDSA', namedCurve: 'P-256' } as const

/**
 * The public key that sign-in and room-join requests must be signed with: the app's official
 * key, or a JWK file given with --signature-key (a test keypair, or another client's key).
 */
export const loadVerifyKey = async (file: string | undefined): Promise<webcrypto.CryptoKey> => {
    if (file === undefined) return getSignaturePublicKey()
    const text = await readFile(file, 'utf8').catch((error: Error) => {
        throw new Error(`--signature-key ${file}: cannot read it (${error.message})`)
    })
    let jwk: webcrypto.JsonWebKey
    try {
        jwk = JSON.parse(text) as webcrypto.JsonWebKey
    } catch {
        throw new Error(
            `--signature-key ${file}: not JSON; expected a public JWK such as {"kty":"EC","crv":"P-256","x":"…","y":"…"}`,
        )
    }
    if (jwk.kty !== 'EC' || jwk.crv !== 'P-256')
        throw new Error(
            `--signature-key ${file}: expected an EC P-256 key, got kty ${jwk.kty} crv ${jwk.crv}`,
        )
    // Only the public half is kept, whatever else the file holds.
    const { kty, crv, x, y } = jwk
    return webcrypto.subtle
        .importKey('jwk', { kty, crv, x, y }, signatureAlgorithm, false, ['verify'])
        .catch((error: Error) => {
            throw new Error(
                `--signature-key ${file}: not a usable P-256 public key (${error.message})`,
            )
        })
}
