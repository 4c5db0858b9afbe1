import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { formatProblem } from '../content/problems.js'
import { loadCatalog } from '../server.js'
import type { CheckArguments } from './arguments.js'

/**
 * `shelf check`: every problem of a folder, for a content repository's CI. It exits 1 when there
 * is any problem at all. Processed resources go to a scratch folder, so checking writes nothing
 * into the folder checked.
 */
export const check = async ({ folder, format, drafts }: CheckArguments) => {
    const cache = await mkdtemp(join(tmpdir(), 'shelf-check-'))
    try {
        const catalog = await loadCatalog({ content: folder, name: 'service', drafts, cache })
        const { problems } = catalog
        if (format === 'json') {
            console.log(JSON.stringify({ folder, problems }, null, 2))
        } else {
            for (const problem of problems) console.log(formatProblem(problem))
            const items = catalog.itemCount
            console.log(
                problems.length
                    ? `${problems.length} problem${problems.length === 1 ? '' : 's'} in ${folder} (${items} items serve)`
                    : `no problems in ${folder} (${items} items)`,
            )
        }
        process.exitCode = problems.length ? 1 : 0
    } finally {
        await rm(cache, { recursive: true, force: true })
    }
}
