/**
 * What the benchmarks print: progress on stderr, tables (or JSON) on stdout, so that stdout can
 * be redirected into a file and hold only results.
 */

export function log(message: string): void {
    process.stderr.write(`${message}\n`)
}

export function formatNumber(value: number | null | undefined, digits: number): string {
    return value === null || value === undefined || Number.isNaN(value)
        ? 'n/a'
        : value.toFixed(digits)
}

/** `12345.6` as `12,346`: request rates read better with thousands separators. */
export function formatCount(value: number | null | undefined): string {
    return value === null || value === undefined || Number.isNaN(value)
        ? 'n/a'
        : Math.round(value).toLocaleString('en-US')
}

/**
 * A plain-text table: columns as wide as their widest cell, text columns (`leftAligned`)
 * padded on the right, numbers on the left, like any table one reads numbers from.
 */
export function renderTable(
    header: string[],
    rows: string[][],
    leftAligned: readonly number[],
): string {
    const left = new Set(leftAligned)
    const widths = header.map((title, column) =>
        Math.max(title.length, ...rows.map((cells) => (cells[column] ?? '').length)),
    )
    const renderRow = (cells: string[]) =>
        cells
            .map((cell, column) =>
                left.has(column)
                    ? cell.padEnd(widths[column] ?? 0)
                    : cell.padStart(widths[column] ?? 0),
            )
            .join('  ')
            .trimEnd()
    const rule = widths.map((width) => '-'.repeat(width)).join('  ')
    return [renderRow(header), rule, ...rows.map(renderRow)].join('\n')
}

/** The value below which `fraction` of the times fall (0.5: the median; 0.99: p99). */
export function percentile(times: readonly number[], fraction: number): number | undefined {
    const sorted = [...times].sort((a, b) => a - b)
    return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))]
}
