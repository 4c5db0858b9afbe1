import type Router from '@koa/router'
import type { ServerInfo, ServerInfoButton } from '@sonolus/core'
import { renderOption } from '../../answers/forms.js'
import type { RequestState, ShelfContext } from '../request-state.js'
import { respond } from '../respond.js'

/** The order of the app's own home page, used when server.yaml lists no buttons. */
const defaultButtonOrder = [
    'post',
    'playlist',
    'level',
    'replay',
    'skin',
    'background',
    'effect',
    'particle',
    'engine',
] as const

/** Which buttons lead somewhere on this server, whatever server.yaml lists. */
export type Features = { signIn: boolean; rooms: boolean }

/** E1: the server's home page. */
export const serverInfoRoutes = (router: Router, features: Features) => {
    router.get('/info', (ctx) => {
        const { catalog, renderer } = (ctx as ShelfContext).state.shelf
        const { settings } = catalog
        respond<ServerInfo>(ctx, {
            title: renderer.text(settings.title),
            description: renderer.optionalText(settings.description),
            buttons: buttons((ctx as ShelfContext).state.shelf, features),
            configuration: {
                options: configurationOf((ctx as ShelfContext).state.shelf).map((option) =>
                    renderOption(option, renderer),
                ),
            },
            banner: renderer.srl(settings.banner),
        })
    })
}

/** The configuration options offered: none by a static export, which would ignore their values. */
const configurationOf = ({ catalog, searchable }: RequestState) =>
    searchable ? catalog.settings.configuration : []

const buttons = (state: RequestState, features: Features): ServerInfoButton[] => {
    const { catalog, renderer } = state
    const { settings } = catalog
    const configurable = configurationOf(state).length > 0
    const offered = (type: string) =>
        (type !== 'authentication' || features.signIn) &&
        (type !== 'room' || features.rooms) &&
        (type !== 'configuration' || configurable)
    if (settings.buttons) {
        return settings.buttons
            .filter((button) => offered(button.type))
            .map(
                (button) =>
                    ({ ...button, title: renderer.optionalText(button.title) }) as ServerInfoButton,
            )
    }
    const itemButtons: ServerInfoButton[] = defaultButtonOrder
        .filter((type) => catalog.items[type].size > 0)
        .map((type) => ({ type }))
    return [
        ...(features.signIn ? [{ type: 'authentication' } as const] : []),
        ...itemButtons,
        ...(features.rooms ? [{ type: 'room' } as const] : []),
        ...(configurable ? [{ type: 'configuration' } as const] : []),
    ]
}
