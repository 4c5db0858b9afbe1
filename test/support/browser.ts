import { chromium, type Browser } from 'playwright-core'

/** Debian's chromium, headless, with nothing that reaches out to the network on its own. */
export const launchBrowser = (): Promise<Browser> =>
    chromium.launch({
        executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
        args: [
            '--headless',
            '--no-sandbox',
            '--disable-gpu',
            '--disable-quic',
            '--no-first-run',
            '--disable-background-networking',
            '--disable-component-update',
            '--disable-sync',
        ],
    })
