import { Redis } from 'ioredis';
import type { Registry } from 'prom-client';
import type { SectionSettings, Settings } from '../config/settings.js';
import type { Logger } from '../observability/logger.js';
import { type OperationLimiter, operationLimiter } from './operation-limiter.js';
import { InProcessPersistedQueries, type PersistedQueryStore, RedisPersistedQueries } from './persisted-queries.js';
import { RedisLink } from './redis-link.js';
import { InProcessResponseCache, RedisResponseCache, type ResponseCache } from './response-cache.js';
import { StoreFailures } from './store-failures.js';

/** What outlives a request, behind one interface per kind whether it lives in this process or in Redis. */
export interface SharedState {
  /** Undefined when CACHE_TTL_MS is 0. */
  responseCache: ResponseCache | undefined;
  /** Undefined when APQ_STORE_BYTES is 0. */
  persistedQueries: PersistedQueryStore | undefined;
  /** Undefined when RATE_LIMIT_OPERATIONS is 0. */
  operationLimiter: OperationLimiter | undefined;
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
 * The stores of the shared state: in this process without REDIS_URL, exactly as one replica always
 * had them; in Redis with it, under REDIS_KEY_PREFIX, shared by every replica and worker. This module
 * is the only one that knows Redis (a dependency rule says so), and a Redis that is down or slow
 * never reaches a caller as an error: its stores answer as a miss or count in this process, and
 * report it (docs/shared-state.md).
 */
export function openSharedState(settings: StateSettings, { logger, registry }: { logger: Logger; registry: Registry }): SharedState {
  const limits = settings.rateLimitOperations > 0 ? settings : undefined;
  const caching = settings.cacheTtlMs > 0;
  const persisting = settings.apqStoreBytes > 0;
  if (!settings.redisUrl) {
    return {
      responseCache: caching ? new InProcessResponseCache(settings.cacheBytes) : undefined,
      persistedQueries: persisting ? new InProcessPersistedQueries(settings.apqStoreBytes) : undefined,
      operationLimiter: limits && operationLimiter(limits),
      connected: async () => {},
      close: async () => {},
    };
  }
  const redis = connect(settings.redisUrl, settings.redisCommandTimeoutMs);
  // ioredis reports a lost connection as an 'error' event besides failing the commands; the commands' failures are what is counted.
  redis.on('error', () => {});
  const link = new RedisLink(redis, settings.redisKeyPrefix, new StoreFailures(registry, logger), settings.redisCommandTimeoutMs);
  return {
    responseCache: caching ? new RedisResponseCache(link) : undefined,
    persistedQueries: persisting ? new RedisPersistedQueries(link) : undefined,
    operationLimiter: limits && operationLimiter(limits, link),
    connected: () => (redis.status === 'ready' ? Promise.resolve() : new Promise((resolve) => redis.once('ready', () => resolve()))),
    close: async () => {
      redis.disconnect();
    },
  };
}

/**
 * One connection with ioredis, set so that a Redis in trouble costs a request at most the command
 * timeout: no command waits in a queue while the connection is down (ioredis's default would hold
 * them until it comes back), none is retried, every one times out after `commandTimeoutMs`; the
 * connection itself is retried in the background, every second at most.
 */
function connect(url: URL, commandTimeoutMs: number): Redis {
  return new Redis(url.href, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: commandTimeoutMs,
    connectTimeout: 2_000,
    retryStrategy: (attempt) => Math.min(attempt * 100, 1_000),
  });
}
