/**
 * Plays as the app submits them from the result screen: gzip-compressed ReplayData with the
 * result given, and the ReplayItem naming the level and the hash of the level data played.
 */
import type { GameplayResult } from '@sonolus/core'
import { gzipSync } from 'node:zlib'
import * as assert from 'uvu/assert'
import { sha1 } from './fixtures.js'
import type { Answer, Player } from './player.js'
import { getJson, type TestServer } from './server.js'

export const perfectResult: GameplayResult = {
    grade: 'allPerfect',
    arcadeScore: 1_000_000,
    accuracyScore: 1_000_000,
    combo: 8,
    perfect: 8,
    great: 0,
    good: 0,
    miss: 0,
    totalCount: 8,
}

/** A result of eight notes with `misses` missed and the score given. */
export const resultOf = (arcadeScore: number, misses = 0): GameplayResult => ({
    ...perfectResult,
    grade: misses ? 'pass' : 'allPerfect',
    arcadeScore,
    accuracyScore: arcadeScore,
    combo: 8 - misses,
    perfect: 8 - misses,
    miss: misses,
})

/** The replay data file the app records, as plain JSON (before gzip). */
export const replayDataOf = (result: unknown) => ({
    startTime: 1_772_475_600_000,
    saveTime: 1_772_475_604_300,
    duration: 2.8,
    inputOffset: 0,
    playArea: { width: 1.7778, height: 1 },
    result,
    inputs: { entityIndex: [], time: [], judgment: [], accuracy: [] },
    entities: [],
    touches: { l: [], t: [], x: [], y: [] },
})

export const gzipJson = (value: unknown) => gzipSync(Buffer.from(JSON.stringify(value)))

/** The hash of the level data a level serves now, as the app sees it in the level's item. */
export const levelDataHash = async (server: TestServer, level: string) => {
    const details = await getJson<{ item: { data: { hash: string } } }>(
        `${server.root}/levels/${level}`,
    )
    assert.is(details.status, 200)
    return details.body.item.data.hash
}

export type PlayAnswer = { submit: Answer; upload?: Answer }

/**
 * Submits a play and uploads its files when the submit asks for them; `data` replaces the
 * replay data's bytes (a bomb, not JSON…), `levelData` the hash of the level data played.
 */
export const submitPlay = async (
    player: Player,
    play: { level: string; levelData: string; result?: unknown; data?: Buffer },
): Promise<PlayAnswer> => {
    const data = play.data ?? gzipJson(replayDataOf(play.result ?? perfectResult))
    const configuration = gzipJson({ options: [] })
    const replay = {
        name: 'local',
        version: 1,
        title: 'A play',
        subtitle: '',
        author: 'me',
        tags: [],
        level: { name: play.level, data: { hash: play.levelData, url: '/local' } },
        data: { hash: sha1(data), url: '/local/data' },
        configuration: { hash: sha1(configuration), url: '/local/configuration' },
    }
    const submit = await player.submit('/levels/result/submit', { type: 'replay' }, { replay })
    if (submit.status !== 200) return { submit }
    const upload = await player.upload('/levels/result/upload', submit.body.key, [
        data,
        configuration,
    ])
    return { submit, upload }
}

/** Submits a play that must be accepted. */
export const play = async (
    player: Player,
    level: string,
    levelData: string,
    result: GameplayResult,
) => {
    const answer = await submitPlay(player, { level, levelData, result })
    assert.is(answer.submit.status, 200, answer.submit.body.message)
    assert.is(answer.upload?.status, 200, answer.upload?.body.message)
}
