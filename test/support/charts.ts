/** What a served level's data says about the chart it was converted from. */
import { gunzipSync } from 'node:zlib'
import * as assert from 'uvu/assert'
import { getBytes, sha1 } from './fixtures.js'
import { assertShape } from './response-shapes.js'

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
