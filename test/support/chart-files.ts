/** Charts written for the tests (and bench/charts.ts) in the three source formats: `notes` notes each. */

/**
 * A SUS chart of `notes` taps, thirty-two to a measure from measure 1 (SUS numbers measures with
 * three digits), on lanes across the stage.
 */
export const susChart = (notes: number) => {
    const lines = [
        '#REQUEST "ticks_per_beat 480"',
        '#WAVEOFFSET 0',
        '#BPM01: 120',
        '#00008: 01',
        '#00002: 4',
    ]
    for (let index = 0; index < notes; index++) {
        const measure = String(1 + Math.floor(index / 32)).padStart(3, '0')
        const slots = Array<string>(32).fill('00')
        slots[index % 32] = '12'
        lines.push(`#${measure}1${(2 + ((index * 3) % 10)).toString(36)}: ${slots.join('')}`)
    }
    return `${lines.join('\n')}\n`
}

/** A USC chart as chart editors save it (`{ usc, version }`): `notes` single notes, one a beat. */
export const uscChart = (notes: number) =>
    JSON.stringify(
        {
            usc: {
                offset: 0,
                objects: [
                    { type: 'bpm', beat: 0, bpm: 150 },
                    ...Array.from({ length: notes }, (_, index) => ({
                        type: 'single',
                        beat: 2 + index,
                        lane: -4 + (index % 9),
                        size: 1,
                        trace: false,
                        critical: index % 3 === 0,
                    })),
                ],
            },
            version: 2,
        },
        null,
        2,
    )

/** A Bestdori chart: `notes` single notes, one a beat, over the seven lanes. */
export const bestdoriChart = (notes: number) =>
    JSON.stringify(
        [
            { type: 'BPM', beat: 0, bpm: 120 },
            ...Array.from({ length: notes }, (_, index) => ({
                type: 'Single',
                beat: 1 + index,
                lane: 1 + (index % 7),
            })),
        ],
        null,
        2,
    )
