/**
 * The shared state's one contract, asked of both implementations: in process, and Redis (a real
 * redis-server on a free loopback port). Then what Redis being away means: a refusal that says
 * so, and work again once it is back.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { MemoryState } from '../src/shared-state/memory-state.js'
import { RedisState } from '../src/shared-state/redis-state.js'
import type { SharedState } from '../src/shared-state/shared-state.js'
import { Refusal } from '../src/util/refusal.js'
import { eventually } from './support/eventually.js'
import { startRedis, type RunningRedis } from './support/redis.js'

let redis: RunningRedis
const stores: { name: string; open(): Promise<SharedState> }[] = [
    { name: 'in process', open: async () => new MemoryState() },
    { name: 'Redis', open: () => RedisState.open(redis.url) },
]

const test = suite('shared state')

test.before(async () => {
    redis = await startRedis()
})

test.after(async () => {
    await redis?.stop()
})

const unique = () => `test-${Math.random().toString(36).slice(2)}`

for (const store of stores) {
    test(`${store.name}: values expire, take is single use, ifAbsent sets once`, async () => {
        const state = await store.open()
        try {
            const key = unique()
            assert.is(await state.get(key), undefined)
            assert.ok(await state.set(key, 'one', 60_000))
            assert.not.ok(await state.set(key, 'two', 60_000, { ifAbsent: true }))
            assert.equal(await state.getMany([key, unique()]), ['one', undefined])
            const taken = await Promise.all([state.take(key), state.take(key)])
            assert.equal(taken.filter(Boolean), ['one'], 'one taker gets it')
            const brief = unique()
            await state.set(brief, 'soon gone', 30)
            await eventually('it expires', async () => (await state.get(brief)) === undefined)
        } finally {
            await state.close()
        }
    })

    test(`${store.name}: sorted indexes`, async () => {
        const state = await store.open()
        try {
            const index = unique()
            await state.indexAdd(index, 'b', 2, 60_000)
            await state.indexAdd(index, 'a', 1, 60_000)
            await state.indexAdd(index, 'c', 3, 60_000)
            assert.equal(
                (await state.indexRange(index, 'descending')).map(({ member }) => member),
                ['c', 'b', 'a'],
            )
            await state.indexRemoveUpTo(index, 2)
            assert.equal(await state.indexRange(index), [{ member: 'c', score: 3 }])
            await state.indexRemove(index, ['c'])
            assert.is(await state.indexSize(index), 0)
        } finally {
            await state.close()
        }
    })

    test(`${store.name}: token buckets take from all or none, and refill`, async () => {
        const state = await store.open()
        try {
            const [first, second] = [unique(), unique()].map((key, index) => ({
                key,
                capacity: index ? 2 : 3,
                perSeconds: 60,
            }))
            const now = 1_000_000
            assert.is(await state.takeTokens([first!, second!], now), undefined)
            assert.is(await state.takeTokens([first!, second!], now), undefined)
            const blocked = await state.takeTokens([first!, second!], now)
            assert.equal(blocked, { index: 1, tokens: 0 })
            // Nothing was taken from the first: it still holds one.
            assert.is(await state.takeTokens([first!], now), undefined)
            assert.is((await state.takeTokens([first!], now))?.index, 0)
            // 30 s later the second has refilled one of its two.
            assert.is(await state.takeTokens([second!], now + 30_000), undefined)
        } finally {
            await state.close()
        }
    })

    test(`${store.name}: a message published reaches every subscriber`, async () => {
        const [one, two] = [await store.open(), await store.open()]
        try {
            const channel = unique()
            const heard: string[] = []
            await one.subscribe(channel, (message) => heard.push(`one ${message}`))
            await two.subscribe(channel, (message) => heard.push(`two ${message}`))
            await one.publish(channel, 'pushed')
            if (store.name === 'in process') assert.equal(heard, ['one pushed'])
            else
                await eventually(
                    'both hear it',
                    async () => heard.includes('one pushed') && heard.includes('two pushed'),
                )
        } finally {
            await Promise.all([one.close(), two.close()])
        }
    })
}

test('Redis away: a refusal that says so (503), and work again by itself once it is back', async () => {
    const state = await RedisState.open(redis.url)
    const channel = unique()
    const heard: string[] = []
    await state.subscribe(channel, (message) => heard.push(message))
    try {
        await redis.kill()
        const refusal = await state.set(unique(), 'x', 60_000).catch((error: unknown) => error)
        assert.instance(refusal, Refusal)
        assert.is((refusal as Refusal).kind, 'unavailable')
        assert.match((refusal as Refusal).message, /shared state \(Redis at .*\) cannot be reached/)
        assert.ok((refusal as Refusal).retryAfterSeconds)
        await redis.start()
        await eventually('commands work again', async () => state.set(unique(), 'x', 60_000))
        await eventually('the subscriber is told it is back', async () => heard.includes(''))
        await eventually('and hears messages again', async () => {
            await state.publish(channel, 'again')
            return heard.includes('again')
        })
    } finally {
        await state.close()
    }
})

test('a Redis that is not there stops the start, saying what to do', async () => {
    const error = await RedisState.open('redis://127.0.0.1:1').catch((caught: Error) => caught)
    assert.instance(error, Error)
    assert.match(
        (error as Error).message,
        /cannot reach the shared state at redis:\/\/127\.0\.0\.1:1/,
    )
    assert.match((error as Error).message, /start redis-server there/)
})

test.run()
