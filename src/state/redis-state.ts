import { Cluster, Redis, type RedisOptions } from 'ioredis';
import type { Registry } from 'prom-client';
import type { SectionSettings } from '../config/settings.js';
import type { Logger } from '../observability/logger.js';
import { type RedisConnection, RedisLink } from './redis-link.js';
import { RedisReach } from './redis-reach.js';
import { StoreFailures } from './store-failures.js';

/** What connecting to Redis reads: the shared state's section of the settings. */
type RedisSettings = SectionSettings<'state'>;

/**
 * The connection to the Redis the settings name (`openSharedState` comes here only when they name
 * one), and the one `RedisLink` every command of the Redis stores runs through, under REDIS_KEY_PREFIX.
 */
export function openRedisLink(
  settings: RedisSettings,
  { logger, registry }: { logger: Logger; registry: Registry },
): { link: RedisLink; close(): void } {
  const redis = connect(settings);
  const reach = new RedisReach(registry, logger);
  const link = new RedisLink(redis, settings.redisKeyPrefix, new StoreFailures(registry, logger), reach, settings.redisCommandTimeoutMs);
  return {
    link,
    close: () => {
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
 * The connection with ioredis to the Redis the settings name (at most one of the three: a rule of
 * the settings), set so that a Redis in trouble costs a request at most the
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
function connect(settings: RedisSettings): RedisConnection {
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
  if (!redisUrl) throw new Error('openRedisLink was called with settings that name no Redis');
  return new Redis(redisUrl.href, options);
}
