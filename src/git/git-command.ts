import { execFile } from 'node:child_process'

/** A git command that failed: its arguments, exit code and what it said on stderr. */
export class GitCommandError extends Error {
    constructor(
        readonly args: readonly string[],
        readonly code: number | string | undefined,
        readonly stderr: string,
    ) {
        super(
            `git ${args.join(' ')} failed${typeof code === 'number' ? ` (exit ${code})` : ''}: ${stderr.trim().split('\n').slice(-3).join(' / ') || 'no message'}`,
        )
    }
}

/** git could not be started at all. */
export class GitMissingError extends Error {}

export type GitRun = (
    args: string[],
    options?: { env?: Record<string, string>; input?: string | Buffer },
) => Promise<string>

/**
 * Variables that would point git at another repository or index than the folder's own: a
 * Shelf started from a git hook inherits them, so they are dropped.
 */
const repositoryVariables = [
    'GIT_DIR',
    'GIT_WORK_TREE',
    'GIT_INDEX_FILE',
    'GIT_PREFIX',
    'GIT_OBJECT_DIRECTORY',
    'GIT_COMMON_DIR',
]

const baseEnvironment = () => {
    const env: NodeJS.ProcessEnv = { ...process.env }
    for (const name of repositoryVariables) delete env[name]
    // Messages are read (rejected pushes, conflicts), so they must not be translated; and a push
    // without credentials must fail rather than wait for a password nobody will type.
    return { ...env, LC_ALL: 'C', GIT_TERMINAL_PROMPT: '0' }
}

/**
 * The real git binary, run in `cwd` with no shell: stdout as text on success, a GitCommandError
 * on failure, a GitMissingError when there is no `git` to run.
 */
export const gitIn = (cwd: string): GitRun => {
    const environment = baseEnvironment()
    return (args, options = {}) =>
        new Promise((done, fail) => {
            const child = execFile(
                'git',
                args,
                {
                    cwd,
                    env: { ...environment, ...options.env },
                    maxBuffer: 256 * 1024 * 1024,
                    encoding: 'utf8',
                },
                (error, stdout, stderr) => {
                    if (!error) return done(stdout)
                    if ((error as NodeJS.ErrnoException).code === 'ENOENT')
                        return fail(new GitMissingError(missingGitMessage))
                    fail(new GitCommandError(args, error.code ?? error.signal ?? undefined, stderr))
                },
            )
            if (options.input !== undefined) child.stdin!.end(options.input)
        })
}

export const missingGitMessage =
    'the git options need the git command, and none was found on the PATH: install git 2.32 or newer (Debian/Ubuntu: apt-get install git; macOS: xcode-select --install; Windows: https://git-scm.com/download/win)'

/** The oldest git Shelf uses: `git apply --cached --3way`, which replays player commits, came in 2.32. */
export const minimumGitVersion = [2, 32] as const

/** Refuses to go on without git, or with one too old, saying what to install. */
export const requireGit = async (run: GitRun) => {
    const output = await run(['--version'])
    const [major = 0, minor = 0] = (/(\d+)\.(\d+)/.exec(output) ?? []).slice(1).map(Number)
    const [needMajor, needMinor] = minimumGitVersion
    if (major < needMajor || (major === needMajor && minor < needMinor)) {
        throw new GitMissingError(
            `the git options need git ${needMajor}.${needMinor} or newer, and ${output.trim()} was found: install a newer git`,
        )
    }
}
