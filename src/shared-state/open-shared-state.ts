import { MemoryState } from './memory-state.js'
import type { SharedState } from './shared-state.js'

/**
 * Redis when an address is given (`--redis`, `$SHELF_REDIS_URL`), this process otherwise. The
 * Redis client is loaded only then: loading it is a tenth of a plain start's own time.
 */
export const openSharedState = async (redisUrl: string | undefined): Promise<SharedState> =>
    redisUrl ? (await import('./redis-state.js')).RedisState.open(redisUrl) : new MemoryState()
