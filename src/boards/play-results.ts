import type { GameplayResult } from '@sonolus/core'
import { statSync } from 'node:fs'
import type { ItemRecord } from '../content/load.js'
import { readServed, type ServedFile } from '../content/resources.js'
import { JsonLog } from '../util/json-log.js'
import { mapLimit } from '../util/map-limit.js'
import { Refusal } from '../util/refusal.js'
import { maxReplayDataBytes, readPlayResult } from './play-result.js'

/** What a replay's data said: the play's result, or why it has none. */
export type PlayReading = { result: GameplayResult } | { problem: string }

type Entry = { hash: string } & PlayReading

/** Replays read at once at start: enough to keep the disk and the thread pool busy. */
const concurrency = 16

/** The served data of a replay, when Shelf serves it (an external Srl has no bytes here). */
export const replayData = (replay: ItemRecord) => {
    const data = replay.resources.data
    return data && 'served' in data ? data.served : undefined
}

/**
 * The results of the replays' plays, by the hash of their data: unpacking every replay at each
 * start would cost more than the rest of the start, so what was read is kept in the state folder
 * as a log appended to, one line per data, and read back whole at start. Only players' plays
 * (replays with an `authorId`) are read.
 */
export class PlayResults {
    private readonly known = new Map<string, PlayReading>()

    private constructor(private readonly log: JsonLog<Entry>) {}

    /** The results kept in `file`; without a file, only what this process reads. */
    static open(file?: string) {
        const results = new PlayResults(new JsonLog(file))
        for (const { hash, ...reading } of results.log.read()) results.known.set(hash, reading)
        return results
    }

    /** What a replay's data says, once read; undefined for a replay that is no player's play. */
    of(replay: ItemRecord): PlayReading | undefined {
        const data = replayData(replay)
        return data && this.known.get(data.hash)
    }

    /** A result the submit already read from the bytes with this hash. */
    remember(hash: string, result: GameplayResult) {
        this.add({ hash, result })
    }

    /** Reads the plays of these replays that are not known yet, then writes down what it read. */
    async read(replays: Iterable<ItemRecord>) {
        const unread = [...replays].filter((replay) => {
            const data = replayData(replay)
            return replay.fields.authorId !== undefined && data && !this.known.has(data.hash)
        })
        await mapLimit(unread, concurrency, async (replay) => {
            const data = replayData(replay)!
            this.add({ hash: data.hash, ...(await readingOf(data)) })
        })
        this.log.flush()
    }

    private add(entry: Entry) {
        const { hash, ...reading } = entry
        if (this.known.has(hash)) return
        this.known.set(hash, reading)
        this.log.add(entry)
    }
}

/** A replay data file in the folder: bounded like a submitted one, and its problem kept rather than thrown. */
const readingOf = async (data: ServedFile): Promise<PlayReading> => {
    try {
        if ((data.slice?.length ?? statSync(data.path).size) > maxReplayDataBytes)
            return { problem: `the replay's data is larger than ${maxReplayDataBytes} bytes` }
        return { result: await readPlayResult(await readServed(data)) }
    } catch (error) {
        if (error instanceof Refusal) return { problem: error.message }
        return { problem: `the replay's data cannot be read: ${(error as Error).message}` }
    }
}
