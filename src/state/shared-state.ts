import { Cluster, Redis, type RedisOptions } from 'ioredis';
import type { Registry } from 'prom-client';
import type { SectionSettings, Settings } from '../config/settings.js';
import type { Logger } from '../observability/logger.js';
import { type IdempotencyKeys, InProcessIdempotencyKeys, RedisIdempotencyKeys } from './idempotency-keys.js';
import { type OperationLimiter, operationLimiter } from './operation-limiter.js';
import { InProcessPersistedQueries, type PersistedQueryStore, RedisPersistedQueries } from './persisted-queries.js';
import { type RedisConnection, RedisLink } from './redis-link.js';
import { RedisReach } from './redis-reach.js';
import { InProcessResponseCache, RedisResponseCache, type ResponseCache } from './response-cache.js';
import { StoreFailures } from './store-failures.js';

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
 * REDIS_KEY_PREFIX, shared by every replica and worker. This module is the only one that knows
 * Redis (a dependency rule says so), and a Redis that is down or slow never reaches a caller as an
 * error: its stores answer as a miss or count in this process, and report it (docs/shared-state.md);
 * only a mutation whose caller asked for an Idempotency-Key's protection is refused meanwhile.
 */
export function openSharedState(settings: StateSettings, { logger, registry }: { logger: Logger; registry: Registry }): SharedState {
  const limits = settings.rateLimit > 0 ? settings : undefined;
  const caching = settings.cacheTtlMs > 0;
  const persisting = settings.apqStoreBytes > 0;
  const redis = connect(settings);
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
  const reach = new RedisReach(registry, logger);
  const link = new RedisLink(redis, settings.redisKeyPrefix, new StoreFailures(registry, logger), reach, settings.redisCommandTimeoutMs);
  return {
    responseCache: caching ? new RedisResponseCache(link) : undefined,
    persistedQueries: persisting ? new RedisPersistedQueries(link) : undefined,
    operationLimiter: limits && operationLimiter(limits, link),
    idempotencyKeys: new RedisIdempotencyKeys(link),
    connected: () => link.connected(),
    close: async () => {
      reach.close();
      redis.disconnect();
    },
  };
}

/** How long making a connection may take, a Sentinel's answer included. */
const CONNECT_TIMEOUT_MS = 2_000;

/** The wait before connecting again: the connection is retried in the background, every second at most. */
const reconnectDelay = (attempt: number) => Math.min(attempt * 100, 1_000);

/**
 * The connection with ioredis to the Redis the settings name, if they name one (at most one of the
 * three: a rule of the settings), set so that a Redis in trouble costs a request at most the
 * command timeout: no command waits in a queue while a connection is down (ioredis's default would
 * hold them until it comes back), none is retried, every one times out after REDIS_COMMAND_TIMEOUT_MS;
 * connections are made again in the background.
 *
 * - REDIS_URL: one server.
 * - REDIS_SENTINELS: the primary that the Sentinels name for REDIS_SENTINEL_MASTER, asked again at
 *   every reconnection, and left as soon as they announce another, so that a failover is followed
 *   without a restart. A primary demoted to a replica answers a write READONLY: the connection is
 *   then made again, to the new one.
 * - REDIS_CLUSTER_NODES: a Redis Cluster, a connection per primary, made as soon as the slots are
 *   known (not at a node's first command, which would refuse the commands that come while it connects),
 *   and made again in the background when it fails, as one server's is.
 *   A command failed by a node that went away or a cluster that is down fails at once, rather than
 *   be retried by ioredis; redirections (MOVED, ASK) are followed within the command's timeout.
 */
function connect(settings: StateSettings): RedisConnection | undefined {
  const { redisUrl, redisSentinels, redisSentinelMaster, redisClusterNodes, redisPassword } = settings;
  const options: RedisOptions = {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: settings.redisCommandTimeoutMs,
    connectTimeout: CONNECT_TIMEOUT_MS,
    // A connection dropped is closed at once, not after ioredis's two seconds of waiting for Redis to close it: a
    // stalled Redis never does, and meanwhile the commands sent to a Redis Cluster's node would wait in its queue.
    disconnectTimeout: 0,
    retryStrategy: reconnectDelay,
    reconnectOnError: (error) => error.message.startsWith('READONLY'),
  };
  if (redisClusterNodes) {
    return new Cluster(redisClusterNodes, {
      enableOfflineQueue: false,
      clusterRetryStrategy: reconnectDelay,
      // Each primary's connection is made again by itself, as one server's is: a primary that stalled or restarted is
      // served again once it answers, without waiting for a command of its slots to be redirected there.
      clusterNodeRetryStrategy: reconnectDelay,
      retryDelayOnFailover: 0,
      retryDelayOnClusterDown: 0,
      slotsRefreshTimeout: CONNECT_TIMEOUT_MS,
      redisOptions: { ...options, password: redisPassword, lazyConnect: false },
    });
  }
  if (redisSentinels) {
    return new Redis({
      ...options,
      sentinels: redisSentinels,
      name: redisSentinelMaster,
      password: redisPassword,
      // `AUTH default <password>` rather than `AUTH <password>`: a Sentinel without a password accepts the first as it is
      // and refuses the second, which ioredis then writes to stderr, outside the logs, at every connection to a Sentinel.
      sentinelUsername: redisPassword && 'default',
      sentinelPassword: redisPassword,
      sentinelCommandTimeout: CONNECT_TIMEOUT_MS,
      // Subscribed to the Sentinels' +switch-master: a planned failover leaves the old primary up, and taking writes
      // until the Sentinels demote it, seconds later; the connection moves to the new one as soon as they announce it.
      failoverDetector: true,
    });
  }
  return redisUrl && new Redis(redisUrl.href, options);
}
