import { constants, setPriority } from 'node:os'

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
