import type { RouterMiddleware } from '@koa/router'
import type { DefaultState } from 'koa'
import type { Auth } from '../auth/auth.js'
import type { Catalog } from '../catalog/catalog.js'
import type { ProtocolHeaders, ShelfOptions } from '../config.js'
import type { Containment } from '../content/containment.js'
import type { ContentGit } from '../git/content-git.js'
import type { LivePreview } from '../web/live-preview.js'
import type { Multiplayer } from './multiplayer.js'
import { pageHandlers } from './page-handlers.js'
import type { ShelfState } from './request-state.js'
import { getAsset } from './routes/_shelf/assets/{file}.js'
import { postGitWebhook } from './routes/_shelf/git/webhook.js'
import { getLiveEvents } from './routes/_shelf/live.js'
import { getProblemsPage } from './routes/_shelf/problems.html.js'
import { getProblems } from './routes/_shelf/problems.js'
import { getHomePage } from './routes/index.js'
import { getCommentsPage } from './routes/{type}/{itemName}/community/comments/list.js'
import { getLeaderboardPage } from './routes/{type}/{itemName}/leaderboards/{leaderboardName}.js'
import { getItemPage } from './routes/{type}/{itemName}.js'
import { getListPage } from './routes/{type}/list.js'
import { postAuthenticate } from './routes/{name}/authenticate.js'
import { getServerInfo } from './routes/{name}/info.js'
import { getLevelResultInfo } from './routes/{name}/levels/result/info.js'
import { postLevelResult } from './routes/{name}/levels/result/submit.js'
import { postLevelResultUpload } from './routes/{name}/levels/result/upload.js'
import { getResource } from './routes/{name}/repository/{hash}.js'
import { postRoomCreate } from './routes/{name}/rooms/create.js'
import { getRoomsInfo } from './routes/{name}/rooms/info.js'
import { getRoomList } from './routes/{name}/rooms/list.js'
import { getRoom, postRoomJoin } from './routes/{name}/rooms/{roomName}.js'
import { postItemCreate } from './routes/{name}/{type}/create.js'
import { getItemInfo } from './routes/{name}/{type}/info.js'
import { getItemList } from './routes/{name}/{type}/list.js'
import { postItemCreateUpload } from './routes/{name}/{type}/upload.js'
import { getCommentList } from './routes/{name}/{type}/{itemName}/community/comments/list.js'
import { postCommentAction } from './routes/{name}/{type}/{itemName}/community/comments/{commentName}/submit.js'
import { postCommentActionUpload } from './routes/{name}/{type}/{itemName}/community/comments/{commentName}/upload.js'
import { getCommunityInfo } from './routes/{name}/{type}/{itemName}/community/info.js'
import { postCommunityAction } from './routes/{name}/{type}/{itemName}/community/submit.js'
import { postCommunityActionUpload } from './routes/{name}/{type}/{itemName}/community/upload.js'
import { getRecordList } from './routes/{name}/{type}/{itemName}/leaderboards/{leaderboardName}/records/list.js'
import { getRecord } from './routes/{name}/{type}/{itemName}/leaderboards/{leaderboardName}/records/{recordName}.js'
import { getLeaderboard } from './routes/{name}/{type}/{itemName}/leaderboards/{leaderboardName}.js'
import { postItemAction } from './routes/{name}/{type}/{itemName}/submit.js'
import { postItemActionUpload } from './routes/{name}/{type}/{itemName}/upload.js'
import { getItemDetails } from './routes/{name}/{type}/{itemName}.js'
import type { Writes } from './submissions.js'

/** What the routes serve besides the catalog; `writes` is absent on a read-only server, `git` without --git. */
export type Services = {
    auth: Auth
    multiplayer?: Multiplayer
    writes?: Writes & { contentRoot: string }
    /** The live preview of the web pages, while the folder is watched. */
    live?: LivePreview
    containment: Containment
    git?: ContentGit
}

export type RouteServices = Services & {
    getCatalog: () => Catalog
    options: ShelfOptions
    headers: ProtocolHeaders
}

export type Route<StateT = DefaultState> = {
    method: 'get' | 'post'
    path: string
    handler: RouterMiddleware<StateT>
}

const get = <StateT>(path: string, handler: RouterMiddleware<StateT>): Route<StateT> => ({
    method: 'get',
    path,
    handler,
})
const post = <StateT>(path: string, handler: RouterMiddleware<StateT>): Route<StateT> => ({
    method: 'post',
    path,
    handler,
})

/**
 * Every path the server answers, next to its handler, in the order they are tried. A handler's
 * file is found from its path: src/http/routes/ mirrors the URL, with `{name}` for the protocol
 * name and `{type}`, `{itemName}`, … for the path's parameters (E1–E23 are PROTOCOL.md's
 * endpoints). Paths that need player writes are answered only when the server takes them.
 */
export const routeTable = (services: RouteServices) => {
    const { auth, multiplayer, writes, live, containment, git, options, headers } = services
    const writable = writes !== undefined
    const pages = pageHandlers(services)
    return {
        /**
         * Under `/{name}`, before the session is read: sign-in, which a stale session must not
         * stop, and resources, which are named by their hash and fetched without the app's headers.
         */
        sessionless: [
            get('/repository/:hash', getResource(containment)),
            post('/authenticate', postAuthenticate(auth, headers)),
        ] satisfies Route<ShelfState>[],

        /** Under `/{name}`, for the session's player: fixed paths first, as `/:type/…` would take them for item names. */
        protocol: [
            get('/info', getServerInfo({ signIn: auth.signInEnabled, rooms: !!multiplayer })),
            get('/levels/result/info', getLevelResultInfo(writable)),
            ...(writes
                ? [
                      post('/levels/result/submit', postLevelResult(writes)),
                      post('/levels/result/upload', postLevelResultUpload(writes)),
                  ]
                : []),
            get('/rooms/info', getRoomsInfo(multiplayer)),
            get('/rooms/list', getRoomList(multiplayer)),
            post('/rooms/create', postRoomCreate(multiplayer, auth)),
            get('/rooms/:roomName', getRoom(multiplayer)),
            post('/rooms/:roomName', postRoomJoin(multiplayer, auth, headers)),
            get('/:type/info', getItemInfo(writable)),
            get('/:type/list', getItemList),
            ...(writes
                ? [
                      post('/:type/create', postItemCreate(writes)),
                      post('/:type/upload', postItemCreateUpload(writes)),
                      post('/:type/:itemName/submit', postItemAction(writes, writes.contentRoot)),
                      post('/:type/:itemName/upload', postItemActionUpload(writes)),
                      post('/:type/:itemName/community/submit', postCommunityAction(writes)),
                      post('/:type/:itemName/community/upload', postCommunityActionUpload(writes)),
                      post(
                          '/:type/:itemName/community/comments/:commentName/submit',
                          postCommentAction(writes),
                      ),
                      post(
                          '/:type/:itemName/community/comments/:commentName/upload',
                          postCommentActionUpload(writes),
                      ),
                  ]
                : []),
            get('/:type/:itemName', getItemDetails(writable)),
            get('/:type/:itemName/community/info', getCommunityInfo(writable)),
            get('/:type/:itemName/community/comments/list', getCommentList(writable)),
            get('/:type/:itemName/leaderboards/:leaderboardName', getLeaderboard),
            get('/:type/:itemName/leaderboards/:leaderboardName/records/list', getRecordList),
            get('/:type/:itemName/leaderboards/:leaderboardName/records/:recordName', getRecord),
        ] satisfies Route<ShelfState>[],

        /** Shelf's own endpoints, outside every protocol name (which cannot start with `_`). */
        development: [
            get(
                '/_shelf/problems',
                getProblems(services.getCatalog, options.ownerToken, git?.problems),
            ),
            ...(git ? [post('/_shelf/git/webhook', postGitWebhook(git))] : []),
        ] satisfies Route[],

        /** The pages for people, unless --no-web or a web client is served instead. */
        pages: [
            get('/', getHomePage(pages)),
            get('/:type/list', getListPage(pages)),
            get('/:type/:itemName', getItemPage(pages, writable)),
            get('/:type/:itemName/community/comments/list', getCommentsPage(pages)),
            get('/:type/:itemName/leaderboards/:leaderboardName', getLeaderboardPage(pages)),
            get('/_shelf/assets/:file', getAsset),
            ...(live
                ? [
                      get('/_shelf/problems.html', getProblemsPage(pages, options.ownerToken)),
                      get('/_shelf/live', getLiveEvents(live)),
                  ]
                : []),
        ] satisfies Route[],
    }
}
