import { Agent, get } from 'node:http'

export type Answer = { status: number; body: Buffer }

/**
 * GET requests to the in-process server, as a guest: no session, no Accept-Encoding (the files
 * hold the identity bytes; the static host compresses on its own), over kept-alive connections.
 */
export class LoopbackClient {
    private readonly agent = new Agent({ keepAlive: true, maxSockets: 16 })

    constructor(private readonly origin: string) {}

    fetch(path: string, accept = 'application/json'): Promise<Answer> {
        return new Promise((resolve, reject) => {
            get(`${this.origin}${path}`, { agent: this.agent, headers: { accept } }, (response) => {
                const chunks: Buffer[] = []
                response.on('data', (chunk: Buffer) => chunks.push(chunk))
                response.on('end', () =>
                    resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks) }),
                )
                response.on('error', reject)
            }).on('error', reject)
        })
    }

    close() {
        this.agent.destroy()
    }
}
