import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'

const repository = fileURLToPath(new URL('../..', import.meta.url))
/** Generous: the child compiles the sources with tsx before it can print anything. */
const deadline = 60_000

export type Run = { args: string[]; code: number | null; stdout: string; stderr: string }

/** `node --import tsx src/cli/main.ts …args` in the repository; resolves when it exits. */
export const runShelf = (args: string[]) =>
    new Promise<Run>((resolve, reject) => {
        const env: NodeJS.ProcessEnv = { ...process.env }
        delete env.PORT
        const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], {
            cwd: repository,
            env,
            stdio: ['ignore', 'pipe', 'pipe'],
        })
        let stdout = ''
        let stderr = ''
        child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk))
        child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
        const timer = setTimeout(() => {
            child.kill('SIGKILL')
            reject(
                new Error(
                    `shelf ${args.join(' ')} still running after ${deadline} ms\nstdout:\n${stdout}\nstderr:\n${stderr}`,
                ),
            )
        }, deadline)
        child.once('error', (error) => {
            clearTimeout(timer)
            reject(error)
        })
        child.once('close', (code) => {
            clearTimeout(timer)
            resolve({ args, code, stdout, stderr })
        })
    })

/** A run as a failing assertion shows it. */
export const describeRun = (run: Run) =>
    `shelf ${run.args.join(' ')} exited ${run.code}\nstdout:\n${run.stdout}\nstderr:\n${run.stderr}`
