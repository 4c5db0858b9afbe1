import { formatProblem } from '../content/problems.js'
import { exportSite, type ExportOptions } from '../export/export-site.js'

const mebibytes = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`

/**
 * `shelf export`: writes the copy and says what changed, so a CI log shows what the sync will
 * upload. The content's errors stop it (exit 1) unless --allow-problems; warnings are printed.
 */
export const exportCommand = async (args: ExportOptions) => {
    const result = await exportSite(args)
    for (const problem of result.problems) console.log(formatProblem(problem))
    if (!result.exported) {
        const errors = result.problems.filter((problem) => problem.severity === 'error').length
        console.error(
            `shelf: ${errors} error${errors === 1 ? '' : 's'} in ${args.content}: nothing exported (fix them, or export anyway with --allow-problems)`,
        )
        process.exitCode = 1
        return
    }
    const { report } = result
    for (const path of report.changes) console.log(`  ${path}`)
    const unnamed = report.written + report.removed - report.changes.length
    if (unnamed > 0) console.log(`  … and ${unnamed} more`)
    console.log(
        `exported ${args.content} to ${args.out} (locale ${result.locale}, ${result.resources} resources) in ${(result.ms / 1000).toFixed(1)} s: ` +
            `${report.written} written (${mebibytes(report.writtenBytes)}), ${report.unchanged} unchanged, ${report.removed} removed`,
    )
}
