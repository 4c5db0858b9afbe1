/** The main thread's time on a core so far, in nanoseconds (see main-thread-cpu.js). */
export declare const mainThreadCpuNs: () => number
