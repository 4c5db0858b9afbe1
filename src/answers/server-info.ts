import type { ServerInfo, ServerInfoButton } from '@sonolus/core'
import { renderOption } from './forms.js'
import type { RequestView } from './request-view.js'

/** The order of the app's own home page, used by the app's and the web's home when server.yaml lists no buttons. */
export const defaultButtonOrder = [
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
export const serverInfo = (view: RequestView, features: Features): ServerInfo => {
    const { catalog, renderer } = view
    const { settings } = catalog
    return {
        title: renderer.text(settings.title),
        description: renderer.optionalText(settings.description),
        buttons: buttons(view, features),
        configuration: {
            options: configurationOf(view).map((option) => renderOption(option, renderer)),
        },
        banner: renderer.srl(settings.banner),
    }
}

/** The configuration options offered: none by a static export, which would ignore their values. */
const configurationOf = ({ catalog, searchable }: RequestView) =>
    searchable ? catalog.settings.configuration : []

const buttons = (view: RequestView, features: Features): ServerInfoButton[] => {
    const { catalog, renderer } = view
    const { settings } = catalog
    const configurable = configurationOf(view).length > 0
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
