import { signInDefaults, type ShelfOptions } from '../config.js'
import type { AcceptedAddresses } from './addresses.js'
import { sessionSecret } from './session-secret.js'
import { Sessions } from './sessions.js'
import { SignedRequestVerifier } from './signed-request.js'
import { TokenSigner } from './signed-token.js'
import { loadVerifyKey } from './verify-key.js'

/** What sign-in and rooms share: the checks of signed requests and the signer of tokens. */
export type Auth = {
    /** Whether E2 is offered, and the home page has a sign-in button. */
    signInEnabled: boolean
    verifier: SignedRequestVerifier
    signer: TokenSigner
    sessions: Sessions
}

export const createAuth = async (
    options: ShelfOptions,
    stateFolder: string,
    addresses: AcceptedAddresses,
): Promise<Auth> => {
    const signIn = { ...signInDefaults, ...options.signIn }
    const signer = new TokenSigner(await sessionSecret(signIn.sessionSecret, stateFolder))
    return {
        signInEnabled: signIn.enabled,
        verifier: new SignedRequestVerifier(
            await loadVerifyKey(signIn.signatureKey),
            addresses,
            signIn.signatureWindowMs,
        ),
        signer,
        sessions: new Sessions(signer, signIn.sessionLifetimeMs),
    }
}
