import { createHash } from 'node:crypto'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { ResourceTable } from '../src/catalog/resource-table.js'
import type { ServedFile } from '../src/content/resources.js'

const fileOf = (hash: string, path = `/files/${hash}`): ServedFile => ({
    hash,
    path,
    contentType: 'application/octet-stream',
})

const sha1 = (text: string) => createHash('sha1').update(text).digest('hex')

test('every file added is found by its hash, through the growths, and no other hash is', () => {
    const table = new ResourceTable()
    const files = Array.from({ length: 20_000 }, (_, index) => fileOf(sha1(String(index))))
    table.addLater(files)
    assert.is(table.size, files.length)
    for (const file of files) assert.is(table.get(file.hash), file, file.hash)
    for (let index = 20_000; index < 21_000; index++)
        assert.is(table.get(sha1(String(index))), undefined)
})

test('room made ahead for more files keeps the files held, and holds the files that come', () => {
    const table = new ResourceTable()
    const files = Array.from({ length: 30_000 }, (_, index) => fileOf(sha1(String(index))))
    table.addLater(files.slice(0, 3_000))
    assert.is(table.size, 3_000)
    table.reserve(27_000)
    table.addLater(files.slice(3_000))
    assert.is(table.size, files.length)
    for (const file of files) assert.is(table.get(file.hash), file, file.hash)
    assert.is(table.get(sha1('30000')), undefined)
})

test('hashes sharing their first characters, short ones and odd strings are told apart', () => {
    const table = new ResourceTable()
    const hashes = ['', 'a', 'abcdefgh', 'abcdefgh0', 'abcdefgh1', 'abcdefgh10', '日本語のハッシュ']
    table.addLater(hashes.map((hash) => fileOf(hash)))
    for (const hash of hashes) assert.is(table.get(hash)?.hash, hash)
    assert.is(table.get('abcdefgh2'), undefined)
    assert.is(table.get('ABCDEFGH'), undefined)
})

test('a file added again under a hash it holds takes the place of the one before', () => {
    const table = new ResourceTable()
    const hash = sha1('same bytes')
    table.addLater([fileOf(hash, '/first')])
    const second = fileOf(hash, '/second')
    table.addLater([second])
    assert.is(table.size, 1)
    assert.is(table.get(hash), second)
})

test('files handed over are found by a look-up before they are put in, the later of a hash winning', () => {
    const table = new ResourceTable()
    const hash = sha1('same bytes')
    const others = Array.from({ length: 5_000 }, (_, index) => fileOf(sha1(String(index))))
    const later = fileOf(hash, '/later')
    table.addLater([fileOf(hash, '/earlier'), ...others])
    table.addLater([later])
    assert.is(table.get(hash), later)
    assert.is(table.get(others[4_999]!.hash), others[4_999])
    assert.is(table.size, 5_001)
})

test('filled a slice at a time, with look-ups and more files handed over between the slices', async () => {
    const table = new ResourceTable()
    const files = Array.from({ length: 200_000 }, (_, index) => fileOf(sha1(String(index))))
    const hash = files[150_000]!.hash
    const replaced = fileOf(hash, '/replaced')
    let handedOver = false
    // A generator that hands over more files the first time it is paused, as a reload would.
    function* firstFiles() {
        for (const [index, file] of files.entries()) {
            if (index === 100_000 && !handedOver) {
                table.addLater([replaced])
                handedOver = true
            }
            yield file
        }
    }
    table.addLater(firstFiles())
    const filled = table.fillInSlices()
    let lookedUp = false
    // A look-up on a later turn, while the fill is paused between slices.
    setImmediate(() => {
        assert.is(table.get(files[199_999]!.hash), files[199_999])
        lookedUp = true
    })
    await filled
    assert.ok(lookedUp)
    assert.ok(handedOver)
    assert.is(table.size, files.length)
    assert.is(table.get(hash), replaced, 'handed over after the first files, it takes their place')
    for (const file of files.slice(0, 1000)) assert.is(table.get(file.hash), file)
})

test.run()
