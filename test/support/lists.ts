/**
 * List requests for the suites that read lists and searches of a running server, and the
 * record helpers their expectations are built with.
 */
import * as assert from 'uvu/assert'
import {
    listedRecords,
    shapePrefix,
    type ContentRecord,
    type ProtocolType,
} from './content-files.js'
import { names } from './http.js'
import { assertShape } from './response-shapes.js'
import { getJson, type TestServer } from './server.js'

export type Item = { name: string; source?: string; title: string } & Record<string, unknown>
export type List = { pageCount: number; cursor?: string; items: Item[]; searches?: unknown[] }
export type Section = {
    title: string
    icon?: string
    itemType: string
    items: Item[]
    searchValues?: string
}
export type ItemInfo = { title?: string; searches?: unknown[]; sections: Section[] }

/** `server` is a getter because suites start their server in `before`, after this runs. */
export const listClient = (server: () => TestServer) => {
    const get = async <T>(path: string) => getJson<T>(`${server().root}${path}`)

    /** A list request that must succeed; its body is checked against `ServerItemList<…Item>`. */
    const list = async (type: ProtocolType, query: Record<string, string> = {}) => {
        const response = await get<List>(`/${type}s/list?${new URLSearchParams(query)}`)
        assert.is(
            response.status,
            200,
            `${type}s/list?${new URLSearchParams(query)}: ${JSON.stringify(response.body).slice(0, 300)}`,
        )
        assertShape(`${shapePrefix(type)}List`, response.body)
        return response.body
    }

    const listNames = async (type: ProtocolType, query: Record<string, string> = {}) =>
        names((await list(type, query)).items)

    return { get, list, listNames }
}

export const levels = () => listedRecords('level')
export const nameList = (records: readonly ContentRecord[]) => records.map((record) => record.name)
