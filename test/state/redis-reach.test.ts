import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { expect, vi } from 'vitest';
import { bearer } from '../support/auth.js';
import { test } from '../support/fixtures.js';
import { metricLines, type TestGateway } from '../support/gateway.js';
import { captureLogs, lineBase } from '../support/logs.js';
import { freePort } from '../support/ports.js';
import { apiKeyPage, apiKeys } from '../support/records.js';
import { describeWithRedis, startRedis } from '../support/redis.js';
import { startRedisCluster } from '../support/redis-cluster.js';
import { SENTINEL_MASTER, startSentinelGroup } from '../support/redis-sentinel.js';

/**
 * What a gateway tells of whether it reaches Redis, over a real redis-server: one log line when
 * it is first reached, one when it is lost (with the error's code) and one when it is back, never
 * one per reconnection attempt; a refused password told as such, apart from a Redis not reached;
 * and `gateway_shared_state_up` on /metrics, 1 or 0, at each moment. No line names the password or
 * Redis's address.
 */
const PASSWORD = 'reach secret';
/** Long enough for ioredis to try to connect again several times (it does every second at most). */
const RETRIES_MS = 2_500;

/** Resolves once the gateway's /metrics says `gateway_shared_state_up` is `value`. */
async function gauge(gateway: TestGateway, value: 0 | 1): Promise<void> {
  while ((await metricLines(gateway, 'gateway_shared_state_up ')).join() !== `gateway_shared_state_up ${value}`) await sleep(50);
}

describeWithRedis('whether Redis is reached', () => {
  test('is told once when it is reached, lost and back, and the gauge follows', { timeout: 30_000 }, async ({ start }) => {
    const redis = await startRedis({ password: PASSWORD });
    try {
      const upstream = await start.upstream();
      const logs = captureLogs('info');
      const gateway = await start.gateway({ upstreamUrl: new URL(upstream.url), redisUrl: new URL(redis.url), logger: logs.logger });
      const reached = { ...lineBase(30), msg: 'shared state: Redis reached' };
      expect(logs.lines()).toEqual([reached]);
      expect(await metricLines(gateway, 'gateway_shared_state_up ')).toEqual(['gateway_shared_state_up 1']);

      await redis.kill();
      await gauge(gateway, 0);
      await sleep(RETRIES_MS);
      const lost = { ...lineBase(40), msg: 'shared state: Redis lost; serving without it', error: 'CONNECTION_CLOSED' };
      expect(logs.lines()).toEqual([reached, lost]);

      await redis.restart();
      await gauge(gateway, 1);
      expect(logs.lines()).toEqual([reached, lost, { ...lineBase(30), msg: 'shared state: Redis reached again' }]);
      for (const secret of [PASSWORD, encodeURIComponent(PASSWORD), String(redis.port)]) expect(logs.raw.join('')).not.toContain(secret);
    } finally {
      await redis.close();
    }
  });

  test('stalled: lost once a command timed out and Redis answered nothing after it, back once it answers', {
    timeout: 30_000,
  }, async ({ start }) => {
    const redis = await startRedis();
    try {
      const upstream = await start.upstream(() => ({ body: apiKeyPage(apiKeys(1)) }));
      const logs = captureLogs('info');
      const gateway = await start.gateway({
        upstreamUrl: new URL(upstream.url),
        redisUrl: new URL(redis.url),
        cacheTtlMs: 60_000,
        logger: logs.logger,
      });
      redis.freeze();
      try {
        // The read cache's lookup times out.
        await gateway.graphql('{ apiKeys(first: 1) { nodes { id } } }', { headers: bearer('stalled') });
        await gauge(gateway, 0);
        await sleep(RETRIES_MS);
      } finally {
        redis.thaw();
      }
      await gauge(gateway, 1);
      expect(logs.lines().filter(({ msg }) => msg !== 'graphql request' && !String(msg).includes('failed a command'))).toEqual([
        { ...lineBase(30), msg: 'shared state: Redis reached' },
        { ...lineBase(40), msg: 'shared state: Redis lost; serving without it', error: 'COMMAND_TIMEOUT' },
        { ...lineBase(30), msg: 'shared state: Redis reached again' },
      ]);
    } finally {
      await redis.close();
    }
  });

  test('one slow command is no outage: nothing lost while Redis answers again within a second, the connection kept', {
    timeout: 30_000,
  }, async ({ start }) => {
    const redis = await startRedis();
    const inspect = new Redis(redis.url);
    try {
      const upstream = await start.upstream(() => ({ body: apiKeyPage(apiKeys(1)) }));
      const logs = captureLogs('info');
      const gateway = await start.gateway({
        upstreamUrl: new URL(upstream.url),
        redisUrl: new URL(redis.url),
        cacheTtlMs: 60_000,
        logger: logs.logger,
      });
      const connections = async () => Number(/total_connections_received:(\d+)/.exec(await inspect.info('stats'))![1]);
      const before = await connections();
      const timeouts = async () => (await metricLines(gateway, 'gateway_shared_state_timeouts_total')).join();
      // Redis stalls long enough for one command to time out, and runs again at once.
      redis.freeze();
      try {
        await gateway.graphql('{ apiKeys(first: 1) { nodes { id } } }', { headers: bearer('slow') });
        expect(await timeouts()).toBe('gateway_shared_state_timeouts_total{store="responseCache"} 1');
      } finally {
        redis.thaw();
      }
      await sleep(RETRIES_MS);
      expect(logs.lines().filter(({ msg }) => msg !== 'graphql request' && !String(msg).includes('failed a command'))).toEqual([
        { ...lineBase(30), msg: 'shared state: Redis reached' },
      ]);
      expect(await metricLines(gateway, 'gateway_shared_state_up ')).toEqual(['gateway_shared_state_up 1']);
      expect(await connections()).toBe(before);
    } finally {
      inspect.disconnect();
      await redis.close();
    }
  });

  test('a refused password is told as such, once, apart from a Redis not reached', { timeout: 30_000 }, async ({ start }) => {
    const redis = await startRedis({ password: PASSWORD });
    const gone = await startRedis();
    await gone.kill();
    try {
      const upstream = await start.upstream();
      const url = (password: string, port = redis.port) =>
        new URL(`redis://${password && `:${encodeURIComponent(password)}@`}127.0.0.1:${port}`);
      const cases = {
        wrong: {
          url: url('not the secret'),
          line: { ...lineBase(50), msg: 'shared state: Redis refused the password; serving without it', error: 'WRONGPASS' },
        },
        none: {
          url: url(''),
          line: { ...lineBase(50), msg: 'shared state: Redis refused the password; serving without it', error: 'NOAUTH' },
        },
        down: {
          url: url(PASSWORD, gone.port),
          line: { ...lineBase(40), msg: 'shared state: Redis not reached; serving without it', error: 'ECONNREFUSED' },
        },
      };
      const started = await Promise.all(
        Object.values(cases).map(async ({ url: redisUrl }) => {
          const logs = captureLogs('info');
          const gateway = await start.gateway({ upstreamUrl: new URL(upstream.url), redisUrl, logger: logs.logger });
          return { gateway, logs };
        }),
      );
      await sleep(RETRIES_MS);
      for (const [i, { line }] of Object.values(cases).entries()) {
        const { gateway, logs } = started[i]!;
        expect(logs.lines()).toEqual([line]);
        expect(await metricLines(gateway, 'gateway_shared_state_up ')).toEqual(['gateway_shared_state_up 0']);
        for (const secret of ['not the secret', 'not%20the%20secret', PASSWORD, String(redis.port), String(gone.port)])
          expect(logs.raw.join('')).not.toContain(secret);
      }
    } finally {
      await Promise.all([redis.close(), gone.close()]);
    }
  });

  test('behind Sentinels, a password or a primary’s name the Sentinels refuse is told as such', { timeout: 60_000 }, async ({ start }) => {
    const group = await startSentinelGroup({ password: PASSWORD });
    try {
      const upstream = await start.upstream();
      const sentinels = group.env.REDIS_SENTINELS!.split(',').map((address) => {
        const [host, port] = address.split(':');
        return { host: host!, port: Number(port) };
      });
      const noSentinel = await freePort();
      const cases = {
        'a wrong password': {
          settings: { redisSentinelMaster: SENTINEL_MASTER, redisPassword: 'not the secret' },
          line: { ...lineBase(50), msg: 'shared state: the Sentinels refused the password; serving without it', error: 'WRONGPASS' },
        },
        'no password': {
          settings: { redisSentinelMaster: SENTINEL_MASTER },
          line: { ...lineBase(50), msg: 'shared state: the Sentinels refused the password; serving without it', error: 'NOAUTH' },
        },
        'a wrong name': {
          settings: { redisSentinelMaster: 'not-the-primary', redisPassword: PASSWORD },
          line: {
            ...lineBase(50),
            msg: 'shared state: the Sentinels know no primary of REDIS_SENTINEL_MASTER; serving without it',
            error: 'NO_SUCH_MASTER',
          },
        },
        'no Sentinel up': {
          settings: {
            redisSentinelMaster: SENTINEL_MASTER,
            redisPassword: PASSWORD,
            redisSentinels: [{ host: '127.0.0.1', port: noSentinel }],
          },
          // ioredis closes a Sentinel's connection that failed, and keeps only that.
          line: { ...lineBase(40), msg: 'shared state: Redis not reached; serving without it', error: 'CONNECTION_CLOSED' },
        },
      };
      const started = await Promise.all(
        Object.values(cases).map(async ({ settings }) => {
          const logs = captureLogs('info');
          const gateway = await start.gateway({
            upstreamUrl: new URL(upstream.url),
            redisSentinels: sentinels,
            ...settings,
            logger: logs.logger,
          });
          return { gateway, logs };
        }),
      );
      await sleep(RETRIES_MS);
      for (const [i, { line }] of Object.values(cases).entries()) {
        const { gateway, logs } = started[i]!;
        expect(logs.lines()).toEqual([line]);
        expect(await metricLines(gateway, 'gateway_shared_state_up ')).toEqual(['gateway_shared_state_up 0']);
        for (const secret of ['not the secret', PASSWORD, String(noSentinel), ...sentinels.map(({ port }) => String(port))])
          expect(logs.raw.join('')).not.toContain(secret);
      }
    } finally {
      await group.close();
    }
  });

  test('behind Sentinels that need no password, nothing is written but the JSON lines', { timeout: 60_000 }, async ({ start }) => {
    const group = await startSentinelGroup({ password: PASSWORD, sentinelPassword: false });
    const warn = vi.spyOn(console, 'warn');
    try {
      const upstream = await start.upstream();
      const logs = captureLogs('info');
      const gateway = await start.gateway({
        upstreamUrl: new URL(upstream.url),
        redisSentinels: group.env
          .REDIS_SENTINELS!.split(',')
          .map((address) => ({ host: '127.0.0.1', port: Number(address.split(':')[1]) })),
        redisSentinelMaster: SENTINEL_MASTER,
        redisPassword: PASSWORD,
        logger: logs.logger,
      });
      await gauge(gateway, 1);
      // Connected again several times: each connection asks a Sentinel for the primary, and subscribes to the Sentinels.
      const primary = new Redis({ port: group.primary.port, host: '127.0.0.1', password: PASSWORD });
      try {
        for (let i = 0; i < 3; i++) {
          await primary.client('KILL', 'TYPE', 'normal');
          await gauge(gateway, 0);
          await gauge(gateway, 1);
        }
      } finally {
        primary.disconnect();
      }
      expect(warn.mock.calls).toEqual([]);
      expect(logs.lines().map(({ msg }) => msg)).toEqual([
        'shared state: Redis reached',
        ...Array(3).fill(['shared state: Redis lost; serving without it', 'shared state: Redis reached again']).flat(),
      ]);
    } finally {
      warn.mockRestore();
      await group.close();
    }
  });

  test('in a Redis Cluster, reached only once every primary is, and told when one comes back, without a command', {
    timeout: 60_000,
  }, async ({ start }) => {
    // A primary held failed by the others only after a minute: the cluster stays usable once it is back.
    const cluster = await startRedisCluster({ password: PASSWORD, nodeTimeoutMs: 60_000 });
    try {
      const down = cluster.nodes[0]!;
      await down.kill();
      const upstream = await start.upstream();
      const logs = captureLogs('info');
      const gateway = await start.gateway({
        upstreamUrl: new URL(upstream.url),
        redisClusterNodes: cluster.nodes.map((node) => ({ host: '127.0.0.1', port: node.port })),
        redisPassword: PASSWORD,
        logger: logs.logger,
      });
      await sleep(RETRIES_MS);
      const notReached = { ...lineBase(40), msg: 'shared state: Redis not reached; serving without it', error: 'ECONNREFUSED' };
      expect(logs.lines()).toEqual([notReached]);
      expect(await metricLines(gateway, 'gateway_shared_state_up ')).toEqual(['gateway_shared_state_up 0']);

      // No request is sent from here on: the gateway learns of the primary's return by itself.
      await down.restart();
      await gauge(gateway, 1);
      expect(logs.lines()).toEqual([notReached, { ...lineBase(30), msg: 'shared state: Redis reached' }]);
      for (const secret of [PASSWORD, ...cluster.nodes.map((node) => String(node.port))]) expect(logs.raw.join('')).not.toContain(secret);
    } finally {
      await cluster.close();
    }
  });
});
