/**
 * Replicas push in turns taken in the shared state (a real redis-server, and in process): two
 * replicas' turns never overlap, the last push's head is shared and announced with who pushed,
 * and with the shared state away a replica pushes without its turn rather than not at all.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { FleetPushes, pushedChannel, readPushSignal } from '../src/git/fleet-pushes.js'
import { MemoryState } from '../src/shared-state/memory-state.js'
import { RedisState } from '../src/shared-state/redis-state.js'
import type { SharedState } from '../src/shared-state/shared-state.js'
import { eventually } from './support/eventually.js'
import { startRedis, type RunningRedis } from './support/redis.js'

let redis: RunningRedis
const test = suite('fleet pushes')

test.before(async () => {
    redis = await startRedis()
})

test.after(async () => {
    await redis?.stop()
})

/** Two replicas' views of one shared state: one store in process, two connections to Redis. */
const stores: { name: string; open(): Promise<[SharedState, SharedState]> }[] = [
    {
        name: 'in process',
        open: async () => {
            const state = new MemoryState()
            return [state, state]
        },
    },
    {
        name: 'Redis',
        open: async () => [await RedisState.open(redis.url), await RedisState.open(redis.url)],
    },
]

for (const store of stores) {
    test(`${store.name}: turns of two replicas never overlap, and each gets its turn`, async () => {
        const [one, two] = await store.open()
        try {
            const replicas = [new FleetPushes(one), new FleetPushes(two)]
            let inTurn = 0
            let most = 0
            const done: string[] = []
            await Promise.all(
                Array.from({ length: 12 }, (_, index) =>
                    replicas[index % 2]!.turn(async () => {
                        most = Math.max(most, ++inTurn)
                        await new Promise((resolve) => setImmediate(resolve))
                        inTurn--
                        done.push(`push ${index}`)
                    }),
                ),
            )
            assert.is(most, 1, 'one push at a time')
            assert.is(done.length, 12)
        } finally {
            await one.close()
            if (two !== one) await two.close()
        }
    })

    test(`${store.name}: a push notes the remote's head for all and says who pushed it`, async () => {
        const [one, two] = await store.open()
        try {
            const [pusher, other] = [new FleetPushes(one), new FleetPushes(two)]
            const heard: string[] = []
            await two.subscribe(pushedChannel, (message) => heard.push(message))
            await pusher.pushed('1'.repeat(40))
            assert.is(await other.lastHead(), '1'.repeat(40))
            await eventually('the other replica hears the push', async () => heard.length > 0)
            assert.equal(readPushSignal(heard[0]!), {
                replica: pusher.replica,
                head: '1'.repeat(40),
            })
            assert.equal(readPushSignal(''), {}, 'a reconnection says nothing')
        } finally {
            await one.close()
            if (two !== one) await two.close()
        }
    })
}

test('the shared state away: the push goes on without a turn', async () => {
    const away = new MemoryState()
    const refuse = () => Promise.reject(new Error('connect ECONNREFUSED'))
    Object.assign(away, { set: refuse, get: refuse, publish: refuse })
    const fleet = new FleetPushes(away)
    const logged: string[] = []
    const error = console.error
    console.error = (...parts: unknown[]) => logged.push(parts.join(' '))
    try {
        assert.is(await fleet.turn(async () => 'pushed'), 'pushed')
        assert.is(await fleet.lastHead(), undefined)
        await fleet.pushed('2'.repeat(40))
        assert.match(logged.join('\n'), /could not tell the other replicas of a push/)
    } finally {
        console.error = error
        await away.close()
    }
})

test.run()
