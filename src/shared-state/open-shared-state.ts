import { MemoryState } from './memory-state.js'
import { RedisState } from './redis-state.js'
import type { SharedState } from './shared-state.js'

/** Redis when an address is given (`--redis`, `$SHELF_REDIS_URL`), this process otherwise. */
export const openSharedState = async (redisUrl: string | undefined): Promise<SharedState> =>
    redisUrl ? RedisState.open(redisUrl) : new MemoryState()
