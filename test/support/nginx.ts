import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises'
import { createServer, connect } from 'node:net'
import { join } from 'node:path'
import { temporaryFolder } from './server.js'

export type RunningNginx = { url: string; stop(): Promise<void> }

const nginxBinary = '/usr/sbin/nginx'

export const freePort = async () => {
    const server = createServer().listen(0, '127.0.0.1')
    await once(server, 'listening')
    const { port } = server.address() as { port: number }
    await new Promise((done) => server.close(done))
    return port
}

const accepts = (port: number) =>
    new Promise<boolean>((resolve) => {
        const socket = connect(port, '127.0.0.1')
        socket.once('connect', () => (socket.destroy(), resolve(true)))
        socket.once('error', () => resolve(false))
    })

/**
 * Debian's nginx in the foreground on a free loopback port, serving `root` with `include` inside
 * its server block, as an owner would deploy an export. Its pid, logs and temporary files stay in
 * a scratch folder; run as root (CI), its workers run as root too, to read the scratch folders.
 */
export const startNginx = async (root: string, include: string): Promise<RunningNginx> => {
    const port = await freePort()
    return runNginx(
        port,
        `server {
        listen 127.0.0.1:${port};
        root ${root};
        include ${include};
    }`,
    )
}

/**
 * nginx in front of servers, with an operator's configuration (an `upstream` and a `server`
 * block, as docs/replicas.md gives them): its listening port and upstream servers are replaced by
 * the test's, and what only a public server has (TLS) is left out.
 */
export const startNginxBalancer = async (
    port: number,
    block: string,
    upstreams: string[],
): Promise<RunningNginx> => {
    const config = block
        .replace(/^(\s*)server \d+\.\d+\.\d+\.\d+:\d+;\n/gm, '')
        .replace(
            /upstream (\w+) \{\n/,
            (line) => `${line}${upstreams.map((upstream) => `    server ${upstream};\n`).join('')}`,
        )
        .replace(/listen 443 ssl;/, `listen 127.0.0.1:${port};`)
        .replace(/^\s*ssl_.*\n/gm, '')
    return runNginx(port, config)
}

const runNginx = async (port: number, servers: string): Promise<RunningNginx> => {
    const prefix = await temporaryFolder('shelf-nginx-')
    await mkdir(join(prefix, 'logs'))
    const config = `${process.getuid?.() === 0 ? 'user root;\n' : ''}daemon off;
worker_processes 1;
pid ${prefix}/nginx.pid;
error_log ${prefix}/logs/error.log;
events { worker_connections 256; }
http {
    access_log off;
    client_body_temp_path ${prefix}/body;
    proxy_temp_path ${prefix}/proxy;
    fastcgi_temp_path ${prefix}/fastcgi;
    uwsgi_temp_path ${prefix}/uwsgi;
    scgi_temp_path ${prefix}/scgi;
    ${servers}
}
`
    await writeFile(join(prefix, 'nginx.conf'), config)
    const child: ChildProcess = spawn(
        nginxBinary,
        ['-p', prefix, '-c', join(prefix, 'nginx.conf'), '-e', join(prefix, 'logs/error.log')],
        { stdio: ['ignore', 'ignore', 'pipe'] },
    )
    let stderr = ''
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
    const exited = once(child, 'exit')
    for (let tries = 0; !(await accepts(port)); tries++) {
        if (child.exitCode !== null || tries > 100) {
            const log = await readFile(join(prefix, 'logs/error.log'), 'utf8').catch(() => '')
            child.kill('SIGKILL')
            throw new Error(`nginx did not start: ${stderr}\n${log}`)
        }
        await new Promise((done) => setTimeout(done, 50))
    }
    return {
        url: `http://127.0.0.1:${port}`,
        stop: async () => {
            if (child.exitCode === null) {
                child.kill('SIGQUIT')
                await exited
            }
            await rm(prefix, { recursive: true, force: true })
        },
    }
}
