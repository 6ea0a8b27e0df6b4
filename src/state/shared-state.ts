import type { Registry } from 'prom-client';
import type { SectionSettings, Settings } from '../config/settings.js';
import type { Logger } from '../observability/logger.js';
import { type IdempotencyKeys, InProcessIdempotencyKeys, RedisIdempotencyKeys } from './idempotency-keys.js';
import { type OperationLimiter, operationLimiter } from './operation-limiter.js';
import { InProcessPersistedQueries, type PersistedQueryStore, RedisPersistedQueries } from './persisted-queries.js';
import { InProcessResponseCache, RedisResponseCache, type ResponseCache } from './response-cache.js';

/** What outlives a request, behind one interface per kind whether it lives in this process or in Redis. */
export interface SharedState {
  /** Undefined when CACHE_TTL_MS is 0. */
  responseCache: ResponseCache | undefined;
  /** Undefined when APQ_STORE_BYTES is 0. */
  persistedQueries: PersistedQueryStore | undefined;
  /** Undefined when RATE_LIMIT is 0. */
  operationLimiter: OperationLimiter | undefined;
  /** The mutations' Idempotency-Keys; always there: a client that sends a key asks for its protection. */
  idempotencyKeys: IdempotencyKeys;
  /**
   * Resolves once Redis is connected (at once without it). Nothing waits for it: until then the
   * stores answer as they do while Redis is down.
   */
  connected(): Promise<void>;
  /** Closes the Redis connection, if there is one. */
  close(): Promise<void>;
}

export type StateSettings = SectionSettings<'state'> & Pick<Settings, 'apqStoreBytes'>;

/**
 * The stores of the shared state: in this process without a Redis, exactly as one replica always
 * had them; in the Redis that REDIS_URL, REDIS_SENTINELS or REDIS_CLUSTER_NODES names, under
 * REDIS_KEY_PREFIX, shared by every replica and worker (src/state/ is the only folder that knows
 * Redis: a dependency rule says so; the connection is made in redis-state.ts), and a Redis that is down or slow never reaches a caller as an
 * error: its stores answer as a miss or count in this process, and report it (docs/shared-state.md);
 * only a mutation whose caller asked for an Idempotency-Key's protection is refused meanwhile.
 */
export async function openSharedState(
  settings: StateSettings,
  { logger, registry }: { logger: Logger; registry: Registry },
): Promise<SharedState> {
  const limits = settings.rateLimit > 0 ? settings : undefined;
  const caching = settings.cacheTtlMs > 0;
  const persisting = settings.apqStoreBytes > 0;
  // Loaded only when a Redis is named: ioredis is needless to a gateway that keeps its state itself.
  const redis =
    settings.redisUrl || settings.redisSentinels || settings.redisClusterNodes
      ? (await import('./redis-state.js')).openRedisLink(settings, { logger, registry })
      : undefined;
  if (!redis) {
    return {
      responseCache: caching ? new InProcessResponseCache(settings.cacheBytes) : undefined,
      persistedQueries: persisting ? new InProcessPersistedQueries(settings.apqStoreBytes) : undefined,
      operationLimiter: limits && operationLimiter(limits),
      idempotencyKeys: new InProcessIdempotencyKeys(settings.idempotencyStoreBytes),
      connected: async () => {},
      close: async () => {},
    };
  }
  const { link } = redis;
  return {
    responseCache: caching ? new RedisResponseCache(link) : undefined,
    persistedQueries: persisting ? new RedisPersistedQueries(link) : undefined,
    operationLimiter: limits && operationLimiter(limits, link),
    idempotencyKeys: new RedisIdempotencyKeys(link),
    connected: () => link.connected(),
    close: async () => redis.close(),
  };
}
