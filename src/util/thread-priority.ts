import { execFileSync } from 'node:child_process'
import { readFileSync, readlinkSync } from 'node:fs'
import { constants, setPriority } from 'node:os'

const belowNormal = constants.priority.PRIORITY_BELOW_NORMAL
/** How often a worker in the idle class looks whether its own loop still gets a core… */
const lookEveryMs = 250
/** …and how late a look may come before it counts as starved, and leaves the class. */
const starvedAfterMs = 500

/**
 * Lowers the calling worker thread below normal priority, so that it gives way to the thread
 * that answers requests and to V8's collector on a machine of few cores. On Linux a priority set
 * for "process 0" is the calling thread's own; elsewhere it would be the whole process's, which
 * is left alone. Below normal rather than lowest: on a machine busy with other processes the
 * lowest let the snapshot's checks of 100,000 levels take 80 s.
 */
export const giveWayToServing = () => {
    if (process.platform === 'linux') setPriority(0, belowNormal)
}

/**
 * Puts the calling worker thread's scheduling class to `chrt`'s `--idle` or `--other`: Node
 * itself cannot ask for it. On Linux the thread's own id is the last part of /proc/thread-self.
 */
const scheduleAs = (policy: '--idle' | '--other') => {
    try {
        const thread = readlinkSync('/proc/thread-self').split('/').at(-1)!
        execFileSync('chrt', [policy, '--pid', '0', thread], { stdio: 'ignore' })
        return true
    } catch {
        return false
    }
}

/** Linux's capability to raise a thread's priority, whoever it belongs to: a bit of /proc/self/status's `CapEff`. */
const sysNice = 1n << 23n

/**
 * Whether this process may take a thread out of the idle class again: Linux lets it only with
 * `CAP_SYS_NICE` (root's, outside most containers) or a nice limit (`ulimit -e`) that reaches
 * below normal. Without either, a thread in the class would stay there however starved.
 */
export const mayLeaveIdleClass = () => {
    try {
        const capabilities = /^CapEff:\s*([0-9a-f]+)$/m.exec(
            readFileSync('/proc/self/status', 'utf8'),
        )
        if (capabilities && (BigInt(`0x${capabilities[1]}`) & sysNice) !== 0n) return true
        const limit = /^Max nice priority\s+(\S+)/m.exec(readFileSync('/proc/self/limits', 'utf8'))
        // The limit is counted from 20 down: 20 - nice.
        return limit?.[1] === 'unlimited' || Number(limit?.[1]) >= 20 - belowNormal
    } catch {
        return false
    }
}

/**
 * Gives way further, for a worker whose loop turns often (work taken in slices or messages): by
 * Linux's idle class (`SCHED_IDLE`), the thread runs only on a core nothing else wants, and the
 * scheduler counts a core that runs only it as free when it places a thread that wakes. A
 * niceness does neither: at 10,000 levels the first watch scan, below normal or at the lowest,
 * took 60–100% of a core of two while the serving thread and a client beside it got less than
 * they asked, and the answers' median doubled while it lasted.
 *
 * A thread of the idle class waits as long as another wants every core: should its own loop
 * fall half a second behind (a machine busy with other work), it leaves the class and stays
 * below normal priority. That look needs turns of the loop, so a worker whose work is one long
 * call (the snapshot's checks) stays below normal. So does this one without `chrt` (util-linux),
 * or when it could not leave the class (`mayLeaveIdleClass`).
 */
export const runWhenIdle = () => {
    giveWayToServing()
    if (process.platform !== 'linux' || !mayLeaveIdleClass() || !scheduleAs('--idle')) return
    let due = performance.now() + lookEveryMs
    const look = setInterval(() => {
        const late = performance.now() - due
        due = performance.now() + lookEveryMs
        if (late < starvedAfterMs) return
        clearInterval(look)
        scheduleAs('--other')
    }, lookEveryMs)
    look.unref()
}
