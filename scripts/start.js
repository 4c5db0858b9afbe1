#!/usr/bin/env node
/**
 * `npm start`: compiles Shelf first if src/ changed since the last build, then runs
 * `dist/cli/main.js` with the same arguments in this same process. A `prestart` script would cost
 * a second node start (a tenth of a second of the one `npm start` aims at), for a check that
 * takes milliseconds.
 */
import { build, isBuilt } from './build.js'

if (!isBuilt()) {
    console.error('shelf: src/ changed since the last build; compiling …')
    await build()
}
await import('../dist/cli/main.js')
