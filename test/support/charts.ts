/**
 * Charts written for the tests in the three source formats, each with the number of notes it
 * holds, and what a served level's data says about them.
 */
import { gunzipSync } from 'node:zlib'
import * as assert from 'uvu/assert'
import { getBytes, sha1 } from './fixtures.js'
import { assertShape } from './response-shapes.js'

/** A SUS chart of `notes` taps, four to a measure from measure 1, on lanes across the stage. */
export const susChart = (notes: number) => {
    const lines = [
        '#REQUEST "ticks_per_beat 480"',
        '#WAVEOFFSET 0',
        '#BPM01: 120',
        '#00008: 01',
        '#00002: 4',
    ]
    for (let index = 0; index < notes; index++) {
        const measure = String(1 + Math.floor(index / 4)).padStart(3, '0')
        const slots = ['00', '00', '00', '00']
        slots[index % 4] = '12'
        lines.push(`#${measure}1${(2 + ((index * 3) % 10)).toString(36)}: ${slots.join('')}`)
    }
    return `${lines.join('\n')}\n`
}

/** A USC chart as chart editors save it (`{ usc, version }`): `notes` single notes, one a beat. */
export const uscChart = (notes: number) =>
    JSON.stringify(
        {
            usc: {
                offset: 0,
                objects: [
                    { type: 'bpm', beat: 0, bpm: 150 },
                    ...Array.from({ length: notes }, (_, index) => ({
                        type: 'single',
                        beat: 2 + index,
                        lane: -4 + (index % 9),
                        size: 1,
                        trace: false,
                        critical: index % 3 === 0,
                    })),
                ],
            },
            version: 2,
        },
        null,
        2,
    )

/** A Bestdori chart: `notes` single notes, one a beat, over the seven lanes. */
export const bestdoriChart = (notes: number) =>
    JSON.stringify(
        [
            { type: 'BPM', beat: 0, bpm: 120 },
            ...Array.from({ length: notes }, (_, index) => ({
                type: 'Single',
                beat: 1 + index,
                lane: 1 + (index % 7),
            })),
        ],
        null,
        2,
    )

/** The notes among a level's entities: every archetype of both engines' notes ends in `Note`. */
const noteCount = (data: { entities: { archetype: string }[] }) =>
    data.entities.filter((entity) => entity.archetype.endsWith('Note')).length

/**
 * Fetches a level's `data` as the app does, checks its hash and shape, and answers its note
 * count with the hash.
 */
export const servedLevelData = async (root: string, level: string) => {
    const details = await fetch(`${root}/levels/${level}`)
    assert.is(details.status, 200, `levels/${level} serves`)
    const { item } = (await details.json()) as { item: { data: { hash: string; url: string } } }
    const origin = new URL(root).origin
    const { status, bytes } = await getBytes(`${origin}${item.data.url}`)
    assert.is(status, 200, `the data of ${level} is served`)
    assert.is(sha1(bytes), item.data.hash, 'the hash is the SHA-1 of the served bytes')
    const data = JSON.parse(gunzipSync(bytes).toString('utf8')) as {
        entities: { archetype: string }[]
    }
    assertShape('LevelData', data)
    return { hash: item.data.hash, notes: noteCount(data), data }
}
