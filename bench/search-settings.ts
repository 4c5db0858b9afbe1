/**
 * The server.yaml the benchmarks serve a generated tree with: the pack format's info.json has no
 * search forms, and bench/write-stall.ts adds its comment form to the levels this declares.
 */
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { writeFileAtomic } from '../src/util/atomic-write.js'
import { log } from './output.js'

/**
 * Written beside the tree's info.json, which it replaces as Shelf's settings (Shelf warns that
 * info.json is ignored). The form follows docs/content-format.md.
 */
function searchSettings(levels: number, seed: number): string {
    return `# Written by Shelf's benchmarks (bench/search-settings.ts) for the advanced-search scenario: a
# generated pack tree has only info.json, and that has no search forms. Shelf reads this file instead.
title: "Shelf benchmark: ${levels} levels (seed ${seed})"
levels:
  searches:
    - type: advanced
      title: "#ADVANCED"
      icon: advanced
      options:
        - { query: keywords, type: text, name: "#KEYWORDS", placeholder: "#KEYWORDS_PLACEHOLDER", filter: keywords }
        - { query: minRating, type: slider, name: "#RATING_MINIMUM", def: 0, min: 0, max: 50, step: 1, filter: rating, compare: min }
        - query: sort
          type: select
          name: "#SORT"
          def: newest
          sort: true
          values:
            - { name: newest, title: "#NEWEST", by: time, order: desc }
            - { name: rating, title: "#RATING", by: rating, order: desc }
            - { name: title, title: "#TITLE", by: title, order: asc }
`
}

/** Writes the tree's server.yaml unless it is already this one, replacing it by a rename (the tree may be a copy of hard links). */
export async function ensureSearchSettings(
    dir: string,
    levels: number,
    seed: number,
): Promise<void> {
    const path = join(dir, 'server.yaml')
    const wanted = searchSettings(levels, seed)
    const existing = await readFile(path, 'utf8').catch(() => null)
    if (existing === wanted) return
    await writeFileAtomic(path, wanted)
    log(`wrote ${path} (the advanced search form)`)
}
