import { lanAddresses } from '../auth/addresses.js'

/**
 * The app's share link of a page: `https://open.sonolus.com/{host}{path}`, where `{host}` is the
 * public address without its scheme (its path included). It opens the app at that page, or
 * offers to install it.
 */
export const openInSonolusUrl = (publicAddress: string, path: string) =>
    `https://open.sonolus.com/${publicAddress.replace(/^[a-z]+:\/\//i, '')}${path}`

/**
 * The address a phone reaches this server at: --address, else the address the page was asked at,
 * unless that is this machine's own (localhost), which a phone cannot reach: then a LAN address.
 */
export const phoneAddress = (configured: string | undefined, origin: string) => {
    if (configured) return configured
    let requested: URL
    try {
        requested = new URL(origin)
    } catch {
        // A Host header no URL can hold: the link names it as it came.
        return origin
    }
    if (!isLoopbackHost(requested.hostname)) return requested.origin
    const lan = lanAddresses()[0]
    return lan
        ? `${requested.protocol}//${lan}${requested.port ? `:${requested.port}` : ''}`
        : requested.origin
}

const isLoopbackHost = (hostname: string) =>
    hostname === 'localhost' || hostname === '[::1]' || /^127\./.test(hostname)

/** qrcode and its PNG encoder are loaded when a first code is drawn, not at every start. */
const qrCodes = () => import('qrcode').then((module) => module.default)

/** A QR code of a link as an SVG element, drawn with paths only (no style, no script). */
export const qrSvg = async (link: string) => {
    const svg = await (
        await qrCodes()
    ).toString(link, {
        type: 'svg',
        margin: 2,
        errorCorrectionLevel: 'M',
        color: { dark: '#000000', light: '#ffffff' },
    })
    return svg.replace('<svg ', '<svg role="img" aria-label="QR code" class="qr" ')
}

/** A QR code of a link for a terminal, in half-block characters. */
export const qrTerminal = async (link: string) =>
    (await qrCodes()).toString(link, { type: 'terminal', small: true })
