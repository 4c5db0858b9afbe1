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
    for (const file of files) table.add(file)
    assert.is(table.size, files.length)
    for (const file of files) assert.is(table.get(file.hash), file, file.hash)
    for (let index = 20_000; index < 21_000; index++)
        assert.is(table.get(sha1(String(index))), undefined)
})

test('hashes sharing their first characters, short ones and odd strings are told apart', () => {
    const table = new ResourceTable()
    const hashes = ['', 'a', 'abcdefgh', 'abcdefgh0', 'abcdefgh1', 'abcdefgh10', '日本語のハッシュ']
    for (const hash of hashes) table.add(fileOf(hash))
    for (const hash of hashes) assert.is(table.get(hash)?.hash, hash)
    assert.is(table.get('abcdefgh2'), undefined)
    assert.is(table.get('ABCDEFGH'), undefined)
})

test('a file added again under a hash it holds takes the place of the one before', () => {
    const table = new ResourceTable()
    const hash = sha1('same bytes')
    table.add(fileOf(hash, '/first'))
    const second = fileOf(hash, '/second')
    table.add(second)
    assert.is(table.size, 1)
    assert.is(table.get(hash), second)
})

test.run()
