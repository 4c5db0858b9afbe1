#!/usr/bin/env node
import {
    helpText,
    parseCheckArguments,
    parseExportArguments,
    parseInitArguments,
    parseServeArguments,
    UsageError,
} from './arguments.js'
import { check } from './check.js'
import { exportCommand } from './export.js'
import { init } from './init.js'
import { serve } from './serve.js'
import { growHeapBy, servingHeapGrowth } from '../util/heap-growth.js'

growHeapBy(servingHeapGrowth)

const main = async (args: string[]) => {
    const [command, ...rest] = args
    if (
        command === undefined ||
        command === '--help' ||
        command === '-h' ||
        command === 'help' ||
        rest.includes('--help') ||
        rest.includes('-h')
    ) {
        console.log(helpText)
        return
    }
    if (command === 'init') return init(parseInitArguments(rest))
    if (command === 'serve') return serve(parseServeArguments(rest, process.env))
    if (command === 'check') return check(parseCheckArguments(rest))
    if (command === 'export') return exportCommand(parseExportArguments(rest))
    throw new UsageError(`unknown command "${command}"`)
}

main(process.argv.slice(2)).catch((error: unknown) => {
    if (error instanceof UsageError) {
        console.error(`shelf: ${error.message}\nRun "shelf --help" for the flags.`)
        process.exitCode = 2
    } else {
        console.error(`shelf: ${(error as Error).message}`)
        process.exitCode = 1
    }
})
