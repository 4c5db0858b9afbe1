import { execFileSync } from 'node:child_process'
import { readlinkSync } from 'node:fs'
import { constants, setPriority } from 'node:os'

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
    if (process.platform === 'linux') setPriority(0, constants.priority.PRIORITY_BELOW_NORMAL)
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
 * call (the snapshot's checks) stays below normal. Without `chrt` (util-linux), so does this one.
 */
export const runWhenIdle = () => {
    giveWayToServing()
    if (process.platform !== 'linux' || !scheduleAs('--idle')) return
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
