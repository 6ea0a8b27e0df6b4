import { setTimeout as sleep } from 'node:timers/promises';
import calculateSlot from 'cluster-key-slot';
import type { Cluster } from 'ioredis';
import { expect } from 'vitest';
import { callerKey } from '../../src/state/caller-key.js';
import { apqExtensions } from '../support/apq.js';
import { bearer } from '../support/auth.js';
import { test } from '../support/fixtures.js';
import { metricLines, type TestGateway } from '../support/gateway.js';
import { apiKeyPage, apiKeys } from '../support/records.js';
import { clusterPrimaries, describeWithRedis, TOPOLOGIES, UNHURRIED_COMMAND_TIMEOUT_MS } from '../support/redis.js';
import { startRedisCluster } from '../support/redis-cluster.js';

/**
 * What only a Redis Cluster does, over real HTTP against a cluster of three primaries made with
 * `redis-cli --cluster create`: the keys of many callers spread over every primary, each caller's
 * keys of the read cache in one slot; and a primary that stalls costs a request one command timeout
 * at most, its commands are dropped with every node's connection, and nothing that timed out runs
 * on it late. (The stores' contract and the two-replica tests run on a cluster too:
 * test/state/stores.test.ts, test/state/replicas.test.ts, and the files of `describeInEachStore`.)
 */
const KEYS = '{ apiKeys(first: 1) { nodes { id } } }';
const PASSWORD = 'cluster secret';
const COMMAND_TIMEOUT_MS = 100;

/** The primary's `host:port` that serves `key`, by the cluster client's slots. */
const nodeOf = (cluster: Cluster, key: string) => cluster.slots[calculateSlot(key)]![0]!;

const totals = async (gateway: TestGateway, name: string) =>
  (await metricLines(gateway, name)).reduce((sum, line) => sum + Number(line.split(' ')[1]), 0);

describeWithRedis('a Redis Cluster', () => {
  test('holds the keys of many callers on every primary, each caller’s cache in one slot', { timeout: 60_000 }, async ({ start }) => {
    const redis = await TOPOLOGIES['a Redis Cluster'](PASSWORD);
    try {
      const upstream = await start.upstream(() => ({ body: apiKeyPage(apiKeys(1)) }));
      const gateway = await start.gateway({
        upstreamUrl: new URL(upstream.url),
        ...redis.settings,
        redisCommandTimeoutMs: UNHURRIED_COMMAND_TIMEOUT_MS,
        redisKeyPrefix: 'spread:',
        cacheTtlMs: 60_000,
        rateLimitOperations: 1_000,
      });
      for (let i = 0; i < 60; i++) {
        const answer = await gateway.graphql(KEYS, { headers: bearer(`caller-${i}`) });
        expect(answer.body).toEqual({ data: { apiKeys: { nodes: [{ id: 'k1' }] } } });
        const text = `{ apiKeys(first: 1) { nodes { id } } caller${i}: __typename }`;
        await fetch(gateway.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...bearer(`caller-${i}`) },
          body: JSON.stringify({ query: text, extensions: apqExtensions(text) }),
        });
      }
      // Stored: the answers were the upstream's, so a caller's second read is answered from Redis (one call per read and per document).
      await gateway.graphql(KEYS, { headers: bearer('caller-0') });
      expect(upstream.requests).toHaveLength(2 * 60);
      expect(await totals(gateway, 'gateway_shared_state_errors_total')).toBe(0);

      const cluster = redis.client() as Cluster;
      const primaries = await clusterPrimaries(cluster);
      expect(primaries).toHaveLength(3);
      const kinds = await Promise.all(
        primaries.map(async (primary) => {
          const keys = await primary.keys('spread:*');
          return ['cache', 'rate', 'apq'].map((kind) => keys.filter((key) => key.startsWith(`spread:${kind}:`)).length);
        }),
      );
      // Every primary holds cache entries, counters and documents of some callers; none holds everything.
      for (const counts of kinds) for (const count of counts) expect(count).toBeGreaterThan(0);
      expect(kinds.reduce((sum, [cache]) => sum + cache!, 0)).toBe(60 * 2);
      for (let i = 0; i < 60; i++) {
        const caller = callerKey(`Bearer caller-${i}`);
        const parts = ['answers', 'expiries', 'generation'].map((part) => nodeOf(cluster, `spread:cache:{${caller}}:${part}`));
        expect(new Set(parts).size).toBe(1);
      }
    } finally {
      await redis.close();
    }
  });

  test('a primary that stalls costs a request one command timeout at most, and runs nothing late', { timeout: 60_000 }, async ({
    start,
  }) => {
    const cluster = await startRedisCluster({ password: PASSWORD });
    try {
      const redis = cluster.client();
      const primaries = await clusterPrimaries(redis);
      const stalled = cluster.nodes[0]!;
      const upstream = await start.upstream(() => ({ body: apiKeyPage(apiKeys(1)) }));
      const gateway = await start.gateway({
        upstreamUrl: new URL(upstream.url),
        redisClusterNodes: cluster.nodes.map((node) => ({ host: '127.0.0.1', port: node.port })),
        redisPassword: PASSWORD,
        redisCommandTimeoutMs: COMMAND_TIMEOUT_MS,
        redisKeyPrefix: 'stall:',
        cacheTtlMs: 60_000,
        rateLimitOperations: 100_000,
      });
      // Two callers whose cache lives on the node that will stall, and two whose cache lives elsewhere.
      const stalledAddress = `127.0.0.1:${stalled.port}`;
      const onStalled = (token: string) => nodeOf(redis, `stall:cache:{${callerKey(`Bearer ${token}`)}}:answers`) === stalledAddress;
      const tokens = Array.from({ length: 200 }, (_, i) => `caller-${i}`);
      const callers = [...tokens.filter(onStalled).slice(0, 2), ...tokens.filter((token) => !onStalled(token)).slice(0, 2)];
      expect(callers).toHaveLength(4);
      const load = (rounds: number) =>
        Promise.all(
          callers.map(async (token) => {
            const statuses: number[] = [];
            for (let i = 0; i < rounds; i++) {
              const answer = await gateway.graphql(`{ apiKeys(first: 1) { nodes { id } } n${i}: __typename }`, { headers: bearer(token) });
              statuses.push(answer.body.data?.apiKeys ? answer.status : 500);
            }
            return statuses;
          }),
        );
      // Warm, and the upstream has vouched for these callers.
      expect((await load(20)).flat().filter((status) => status !== 200)).toEqual([]);
      const stalledNode = primaries.find((primary) => primary.options.port === stalled.port)!;
      await Promise.all(primaries.map((primary) => primary.flushall()));

      const timedOutBefore = await totals(gateway, 'gateway_shared_state_timeouts_total');
      stalled.freeze();
      expect((await load(100)).flat().filter((status) => status !== 200)).toEqual([]);
      // One command timed out for each request in flight when the node stalled, at most; the others never waited for it.
      expect((await totals(gateway, 'gateway_shared_state_timeouts_total')) - timedOutBefore).toBeLessThanOrEqual(callers.length);

      stalled.thaw();
      await sleep(500);
      // Nothing that timed out ran once the node answered again: no answer stored, no count taken.
      expect(await stalledNode.keys('stall:*')).toEqual([]);

      // And sharing resumes by itself: a caller whose answers live on that node has them cached again.
      const read = (first: number) => gateway.graphql(`{ apiKeys(first: ${first}) { nodes { id } } }`, { headers: bearer(callers[0]!) });
      for (let first = 2; ; first++) {
        const before = upstream.requests.length;
        await read(first);
        await read(first);
        if (upstream.requests.length - before === 1) break;
        await sleep(100);
      }
      expect(await stalledNode.keys('stall:cache:*')).toHaveLength(2);
    } finally {
      cluster.nodes[0]!.thaw();
      await cluster.close();
    }
  });
});
