/**
 * A content folder of plays for `bench/boards.ts`: the example content with `plays` replays of
 * signed-in players submitted from the result screen, `oneLevel` of them on one level, spread over
 * `players` players and three revisions of each level's chart (the state folder is given the two
 * older revisions, as if the server had served them). Each replay is what Shelf writes for a
 * submitted play: `item.yaml` with `authorId` and `levelData`, and the app's gzip `data` and
 * `configuration`. The levels' charts become gzip `data` files, served as they are, so a chart's
 * hash is the SHA-1 of its file.
 */
import { createHash } from 'node:crypto'
import {
    cpSync,
    existsSync,
    mkdirSync,
    readFileSync,
    readdirSync,
    rmSync,
    writeFileSync,
} from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { gzipSync } from 'node:zlib'

const exampleContent = fileURLToPath(new URL('../content/', import.meta.url))

export type PlaysTree = { plays: number; oneLevel: number; players: number; seed: number }

/** The level that gets `oneLevel` of the plays. */
export const busyLevel = 'first-steps'

const sha1 = (bytes: Buffer) => createHash('sha1').update(bytes).digest('hex')

/** A small deterministic generator (mulberry32), so a tree is the same for a seed. */
const random = (seed: number) => () => {
    seed = (seed + 0x6d2b79f5) | 0
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

export const playerId = (index: number) => `player-${String(index).padStart(5, '0')}`

export const generatePlays = (content: string, state: string, tree: PlaysTree) => {
    rmSync(content, { recursive: true, force: true })
    cpSync(exampleContent, content, {
        recursive: true,
        filter: (path) => !path.includes('/.shelf'),
    })
    mkdirSync(state, { recursive: true })
    const next = random(tree.seed)
    // Levels whose data is a chart (data.sus, …) are converted at load: plays go to the others.
    const levels = readdirSync(join(content, 'levels')).filter(
        (name) =>
            !name.startsWith('_') &&
            existsSync(join(content, 'levels', name, 'data.json')) &&
            !/^(draft|unlisted): true$/m.test(
                readFileSync(
                    join(
                        content,
                        'levels',
                        name,
                        readdirSync(join(content, 'levels', name)).find((file) =>
                            file.startsWith('item.'),
                        )!,
                    ),
                    'utf8',
                ),
            ),
    )
    const now = Date.now()
    const revisions: string[] = []
    const hashes = new Map<string, string[]>()
    for (const level of levels) {
        const folder = join(content, 'levels', level)
        const data = gzipSync(
            Buffer.from(
                JSON.stringify(JSON.parse(readFileSync(join(folder, 'data.json'), 'utf8'))),
            ),
        )
        rmSync(join(folder, 'data.json'))
        writeFileSync(join(folder, 'data'), data)
        const current = sha1(data)
        const older = [1, 2].map((revision) => sha1(Buffer.from(`${level} revision ${revision}`)))
        hashes.set(level, [current, ...older])
        for (const [index, hash] of [...older, current].entries())
            revisions.push(JSON.stringify({ level, hash, at: now - (3 - index) * 30 * 86_400_000 }))
    }
    writeFileSync(join(state, 'revisions.jsonl'), `${revisions.join('\n')}\n`)
    const configuration = gzipSync(Buffer.from(JSON.stringify({ options: [] })))
    const others = levels.filter((level) => level !== busyLevel)
    for (let index = 0; index < tree.plays; index++) {
        const level = index < tree.oneLevel ? busyLevel : others[index % others.length]!
        const [current, ...older] = hashes.get(level)!
        // Most plays are on the chart served now; a third are on the two before it.
        const levelData = next() < 0.67 ? current! : older[Math.floor(next() * older.length)]!
        const player = Math.floor(next() * tree.players)
        const notes = 200
        const miss = Math.floor(next() * 20)
        const great = Math.floor(next() * (notes - miss))
        const score = Math.round(1_000_000 * ((notes - miss - great * 0.3) / notes))
        const result = {
            grade: miss ? 'pass' : 'fullCombo',
            arcadeScore: score,
            accuracyScore: score,
            combo: notes - miss,
            perfect: notes - miss - great,
            great,
            good: 0,
            miss,
            totalCount: notes,
        }
        const data = gzipSync(
            Buffer.from(
                JSON.stringify({
                    startTime: 0,
                    saveTime: 1,
                    duration: 120,
                    inputOffset: 0,
                    playArea: { width: 1.7778, height: 1 },
                    result,
                    inputs: { entityIndex: [], time: [], judgment: [], accuracy: [] },
                    entities: [],
                    touches: { l: [], t: [], x: [], y: [] },
                    seed: index,
                }),
            ),
        )
        const folder = join(content, 'replays', `play-${String(index).padStart(6, '0')}`)
        mkdirSync(folder, { recursive: true })
        writeFileSync(join(folder, 'data'), data)
        writeFileSync(join(folder, 'configuration'), configuration)
        const time = new Date(now - (tree.plays - index) * 60_000).toISOString()
        writeFileSync(
            join(folder, 'item.yaml'),
            `title: Score ${score}\nsubtitle: ${level}\nauthor: Player ${player}\nauthorId: ${playerId(player)}\nauthorHandle: "${1000 + player}"\ntime: ${time}\nlevel: ${level}\nlevelData: ${levelData}\n`,
        )
    }
}
