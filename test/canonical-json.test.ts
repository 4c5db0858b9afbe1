/**
 * A JSON file whose bytes are what JSON.stringify(JSON.parse(file)) writes is gzipped as it is
 * (content/canonical-json.ts): it must be recognised only then, so that the bytes served, and
 * their hash, are those @sonolus/core's compress makes of the parsed file.
 */
import { compressSync } from '@sonolus/core'
import { mkdir, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { canonicalJson } from '../src/content/canonical-json.js'
import { workOn } from '../src/content/resource-work.js'
import { temporaryFolder } from './support/server.js'

/** What the file stands for, minified; undefined when it is no JSON. */
const minified = (text: string) => {
    try {
        return JSON.stringify(JSON.parse(text))
    } catch {
        return undefined
    }
}

/** Never recognised as other than the minified JSON it is; whether it was. */
const check = (text: string) => {
    const found = canonicalJson(Buffer.from(text))?.toString()
    if (found !== undefined) assert.is(found, minified(text), `taken for minified: ${text}`)
    return found !== undefined
}

/** Integer keys, which JSON.parse puts first, are left to it even where they already are. */
const hasIntegerKey = (text: string) => /(?<!\\)"\d+":/.test(text)

const minifiedTexts = [
    '{"bgmOffset":0,"entities":[{"archetype":"Initialization","data":[]}]}',
    '{"a":[1,-2,0.5,-0.25,2.5833333333333335,0.1,1e+21,1.7976931348623157e+308,5e-324]}',
    '[0.000001,1e-7,123456789012345,1234567890123456,9007199254740991,-1,-0.001]',
    '"plain \\" \\\\ \\n \\t \\b \\f \\r \\u0000 \\u001f \u007f done"',
    '{"é":"ünïcødé ☃ 😀","":1,"__proto__":2,"-1":3,"1.5":4}',
    'true',
    'null',
    '[]',
    '{}',
    '[[[[{"a":{"b":[false,null,true]}}]]]]',
    '\n {"spaced":"around"}\n\t',
]

const otherTexts = [
    '{"a": 1}',
    '{\n    "a": 1\n}\n',
    '[1.0]',
    '[1.50]',
    '[-0]',
    '[-0.0]',
    '[1E5]',
    '[1e5]',
    '[1e21]',
    '[0.0000001]',
    '[12345678901234567890]',
    '[9007199254740993]',
    '[2.58333333333333349]',
    '[01]',
    '[1.]',
    '[.5]',
    '[+1]',
    '["\\u0041"]',
    '["\\/"]',
    '["\\u000a"]',
    '["\\u001F"]',
    '["\\u007f"]',
    '["\\ud83d\\ude00"]',
    '["\\ud800"]',
    '["tab\tinside"]',
    '{"a":1,"a":2}',
    '{"b":1,"1":2}',
    '{"0":1}',
    '{a:1}',
    '{"a":1,}',
    '[1,]',
    '[1 ,2]',
    '[tru]',
    '["unterminated',
    '["escape at the end\\',
    '{"a":1}{"b":2}',
    '',
    '   ',
    '\ufeff{"bom":1}',
    `{${Array.from({ length: 70 }, (_, index) => `"k${index}":${index}`).join(',')}}`,
    `${'['.repeat(300)}${']'.repeat(300)}`,
]

test('minified JSON is recognised as it is, spaces around it left out', () => {
    for (const text of minifiedTexts) assert.ok(check(text), text)
})

test('JSON that minifies to other bytes, and what is no JSON, is never taken for minified', () => {
    for (const text of otherTexts) assert.not.ok(check(text), text)
    assert.is(canonicalJson(Buffer.from('{"a": 1}')), undefined)
    assert.is(canonicalJson(Buffer.from([0x5b, 0x22, 0xc3, 0x28, 0x22, 0x5d])), undefined)
})

/** A random JSON value of numbers, strings and keys that JSON.stringify writes in every way it can. */
const randomValue = (random: () => number, depth: number): unknown => {
    const pick = <T>(items: T[]) => items[Math.floor(random() * items.length)]!
    const kind = depth > 3 ? random() * 4 : random() * 6
    if (kind < 1) return pick([true, false, null])
    if (kind < 2)
        return pick([
            Math.floor(random() * 1000) - 500,
            (random() - 0.5) * 10 ** Math.floor(random() * 50 - 25),
            Math.floor(random() * 1000) / pick([3, 4, 7, 12, 1000]),
            -0,
            2 ** 53 + 2,
        ])
    if (kind < 4) {
        const characters = ['a', 'Z', ' ', '"', '\\', '\n', '\u0001', '\u007f', 'é', '\u2028', '😀']
        return Array.from({ length: Math.floor(random() * 6) }, () => pick(characters)).join('')
    }
    if (kind < 5)
        return Array.from({ length: Math.floor(random() * 4) }, () =>
            randomValue(random, depth + 1),
        )
    const keys = ['a', 'b', '1', '10', '', 'a b', 'x"y', '-2']
    return Object.fromEntries(
        Array.from({ length: Math.floor(random() * 4) }, () => [
            pick(keys),
            randomValue(random, depth + 1),
        ]),
    )
}

test('random values: minified ones are recognised, the same indented or with keys repeated are not', () => {
    let seed = 7
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31
    for (let index = 0; index < 3000; index++) {
        const value = randomValue(random, 0)
        const text = JSON.stringify(value)
        assert.is(check(text), !hasIntegerKey(text), text)
        check(JSON.stringify(value, null, 1))
        check(text.replace(/"a":/, '"b":1,"b":'))
        check(text.replace(/(\d)(,|\]|\}|$)/, '$1.0$2'))
    }
})

test('a chart minified or indented is served as compress makes it of the parsed chart', async () => {
    const folder = await temporaryFolder('canonical-json')
    await mkdir(folder, { recursive: true })
    try {
        const chart = {
            bgmOffset: 0.25,
            entities: [{ archetype: 'NormalTapNote', data: [{ name: '#BEAT', value: 31 / 12 }] }],
        }
        const expected = compressSync(chart)
        for (const [name, text] of [
            ['minified.json', JSON.stringify(chart)],
            ['indented.json', `${JSON.stringify(chart, null, 4)}\n`],
        ] as const) {
            const path = join(folder, name)
            await writeFile(path, text)
            const done = workOn({ path, making: 'json' })
            assert.ok(done.made?.equals(expected), name)
        }
    } finally {
        await rm(folder, { recursive: true, force: true })
    }
})

test.run()
