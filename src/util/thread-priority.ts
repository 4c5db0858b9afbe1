import { execFileSync } from 'node:child_process'
import { readlinkSync } from 'node:fs'
import { constants, setPriority } from 'node:os'

/** How often a worker in the idle class looks whether its own loop still gets a core… */
const lookEveryMs = 250
/** …and how late a look may come before it counts as starved, and leaves the class. */
const starvedAfterMs = 500

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
 * Makes the calling worker thread give way to the thread that answers requests and to V8's
 * collector on a machine of few cores, by Linux's idle class (`SCHED_IDLE`): the thread runs
 * only on a core nothing else wants, and the scheduler counts a core that runs only it as free
 * when it places a thread that wakes. A niceness does neither: at 10,000 levels the first watch
 * scan, below normal or at the lowest, put the serving thread and a client beside it on one core
 * of two, and the answers' median doubled while it lasted.
 *
 * A thread of the idle class waits as long as another wants every core; should its own loop
 * fall half a second behind, it leaves the class and stays below normal priority (the lowest
 * let the snapshot's checks of 100,000 levels take 80 s on a busy machine). Below normal is
 * also where it stays without `chrt` (util-linux). On Linux a priority set for "process 0" is
 * the calling thread's own; elsewhere it would be the whole process's, which is left alone.
 */
export const giveWayToServing = () => {
    if (process.platform !== 'linux') return
    setPriority(0, constants.priority.PRIORITY_BELOW_NORMAL)
    if (!scheduleAs('--idle')) return
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
