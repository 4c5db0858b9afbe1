import { commentFile } from './comment-file.js'
import { parseRecordFile } from './parse-file.js'

/**
 * Writes a comment's file and reads it back, in memory: reading it loads gray-matter (with js-yaml
 * and esprima, 15-25 ms), and the yaml package compiles its stringifier and its parser at their
 * first use. A start from the snapshot reads no YAML, so the first comment after it paid for the
 * yaml package's in the loop (at 100,000 levels under `--cpu-prof`, 16.5 ms writing it and 19.6
 * reading it back, two stalls of the watcher's first scan).
 */
export const warmUpCommentFiles = () => {
    const { path, bytes } = commentFile('warm-up', 'warm-up', {
        author: 'Shelf',
        authorId: 'warm-up',
        authorHandle: '0000',
        time: new Date(0),
        content: 'warm-up',
    })
    parseRecordFile(path, bytes)
}
