import { spawn } from 'node:child_process'
import { repository, shelfArguments } from './built-cli.js'

/** Generous: a build may come first, and the machine may be busy. */
const deadline = 60_000

export type Run = { args: string[]; code: number | null; stdout: string; stderr: string }

/** `node dist/cli/main.js …args` in the repository; resolves when it exits. */
export const runShelf = async (args: string[]) => {
    const command = await shelfArguments(args)
    return new Promise<Run>((resolve, reject) => {
        const env: NodeJS.ProcessEnv = { ...process.env }
        delete env.PORT
        const child = spawn(process.execPath, command, {
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
}

/** A run as a failing assertion shows it. */
export const describeRun = (run: Run) =>
    `shelf ${run.args.join(' ')} exited ${run.code}\nstdout:\n${run.stdout}\nstderr:\n${run.stderr}`
