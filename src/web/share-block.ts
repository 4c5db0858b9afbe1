import { openInSonolusUrl, qrSvg } from './share.js'
import type { PageRequest } from './page-frame.js'

/** The "Open in Sonolus" link of a page, its QR code, and a line when the app cannot open this server. */
export const shareBlock = async (request: PageRequest, path: string) => {
    const link = openInSonolusUrl(request.phoneAddress, path)
    return { link, qr: await qrSvg(link), needsSonolusName: !request.appOpens }
}
