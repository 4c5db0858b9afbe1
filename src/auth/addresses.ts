import { networkInterfaces } from 'node:os'

/** Addresses a phone on the same network can reach this machine by. */
export const lanAddresses = () =>
    Object.values(networkInterfaces())
        .flat()
        .filter((entry) => entry !== undefined && !entry.internal && entry.family === 'IPv4')
        .map((entry) => entry!.address)

/** Whether a server listening on this host is reached at every address of the machine. */
export const isWildcard = (host: string | undefined) => !host || host === '0.0.0.0' || host === '::'

/**
 * The addresses a signed request may name as this server. The app signs the address it was
 * pointed at, and the check stops a request signed for another server from being replayed here.
 * So it is never taken from the request's Host header, which the sender chooses.
 */
export class AcceptedAddresses {
    readonly list: readonly string[]
    /** Whether --address named the one address, or the list is what this machine is reached at. */
    private readonly configured: boolean

    constructor(address: string | undefined, listening: { host?: string; port: number }) {
        if (address !== undefined) {
            this.list = [address]
            this.configured = true
            return
        }
        const hosts = isWildcard(listening.host)
            ? ['localhost', '127.0.0.1', '[::1]', ...lanAddresses()]
            : [listening.host!.includes(':') ? `[${listening.host}]` : listening.host!]
        this.list = hosts.map((host) => `http://${host}:${listening.port}`)
        this.configured = false
    }

    accepts(address: string) {
        return this.list.includes(address)
    }

    explainRefusal(address: string) {
        const accepted = this.list.join(', ')
        return this.configured
            ? `address "${address}" is not this server's address ${accepted}`
            : `address "${address}" is not one this server is reached at (${accepted}); a server reached by another address must be started with --address`
    }
}
