import { basename, dirname } from 'node:path'
import { GitCommandError, GitMissingError, gitIn } from './git-command.js'

/** Whether a git repository around the file tracks it; false where there is no git or no repository. */
export const isTrackedByGit = async (file: string) => {
    try {
        await gitIn(dirname(file))(['ls-files', '--error-unmatch', '--', basename(file)])
        return true
    } catch (error) {
        if (error instanceof GitCommandError || error instanceof GitMissingError) return false
        // The folder may not exist yet (no secret made): nothing to track.
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false
        throw error
    }
}
