import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { assertShape } from './support/response-shapes.js'
import { getJson, startTestServer, type TestServer } from './support/server.js'

let server: TestServer

test.before(async () => {
    server = await startTestServer()
})

test.after(async () => {
    await server.stop()
})

test('the home page is a ServerInfo carrying the version header', async () => {
    const { status, headers, body } = await getJson(`${server.root}/info`)
    assert.is(status, 200)
    assert.ok(headers.get('service-version'))
    assertShape('ServerInfo', body)
})

test.run()
