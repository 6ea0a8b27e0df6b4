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
        rateLimit: 1_000,
        rateLimitUnit: 'operations',
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
      const upstream = await start.upstream(() => ({ body: apiKeyPage(apiKeys(1)) }));
      const gateway = await start.gateway({
        upstreamUrl: new URL(upstream.url),
        redisClusterNodes: cluster.nodes.map((node) => ({ host: '127.0.0.1', port: node.port })),
        redisPassword: PASSWORD,
        redisCommandTimeoutMs: COMMAND_TIMEOUT_MS,
        redisKeyPrefix: 'stall:',
        cacheTtlMs: 60_000,
        rateLimit: 100_000,
        rateLimitUnit: 'operations',
      });
      // Four callers all of whose keys, count and cache, live on the node that will stall: every command of theirs goes
      // there, and none to the other primaries, whose own commands a busy machine can make time out now and then (the
      // callers of the other primaries are the next test's). Such callers are found on some primaries only: the slots
      // of `…rate:<caller>` and of `<caller>` (the cache's hash tag) differ by a constant XOR, CRC16 being linear.
      const home = (token: string) => {
        const caller = callerKey(`Bearer ${token}`);
        const [rate, cache] = [`stall:rate:${caller}`, `stall:cache:{${caller}}:answers`].map((key) => nodeOf(redis, key));
        return rate === cache ? rate : undefined;
      };
      const tokens = Array.from({ length: 300 }, (_, i) => `caller-${i}`);
      const stalledAddress = tokens.map(home).find((address) => address !== undefined)!;
      const stalled = cluster.nodes.find((node) => stalledAddress === `127.0.0.1:${node.port}`)!;
      const callers = tokens.filter((token) => home(token) === stalledAddress).slice(0, 4);
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
      for (const node of cluster.nodes) node.thaw();
      await cluster.close();
    }
  });

  test('a primary that stalls leaves the other primaries’ slots shared: their callers’ counts and answers stay in Redis', {
    timeout: 60_000,
  }, async ({ start }) => {
    // Held failed by the others only after a minute: meanwhile the cluster serves every other slot.
    const cluster = await startRedisCluster({ password: PASSWORD, nodeTimeoutMs: 60_000 });
    const stalled = cluster.nodes[0]!;
    try {
      const redis = cluster.client();
      await clusterPrimaries(redis);
      const upstream = await start.upstream(() => ({ body: apiKeyPage(apiKeys(1)) }));
      const gateway = await start.gateway({
        upstreamUrl: new URL(upstream.url),
        redisClusterNodes: cluster.nodes.map((node) => ({ host: '127.0.0.1', port: node.port })),
        redisPassword: PASSWORD,
        // The others' commands must not time out on a busy machine: each that did would be a miss, and a count in this process.
        redisCommandTimeoutMs: UNHURRIED_COMMAND_TIMEOUT_MS,
        redisKeyPrefix: 'part:',
        cacheTtlMs: 60_000,
        rateLimit: 100_000,
        rateLimitUnit: 'operations',
      });
      // Where each of a caller's keys lives: its count, and its answers (all three parts in one slot).
      const nodesOf = (token: string) => {
        const caller = callerKey(`Bearer ${token}`);
        return [nodeOf(redis, `part:rate:${caller}`), nodeOf(redis, `part:cache:{${caller}}:answers`)];
      };
      const stalledAddress = `127.0.0.1:${stalled.port}`;
      const tokens = Array.from({ length: 300 }, (_, i) => `caller-${i}`);
      // One caller whose count lives on the node that will stall; three all of whose keys live elsewhere.
      const onStalled = tokens.find((token) => nodesOf(token)[0] === stalledAddress)!;
      const elsewhere = tokens.filter((token) => !nodesOf(token).includes(stalledAddress)).slice(0, 3);
      expect(elsewhere).toHaveLength(3);
      const read = (token: string) => gateway.graphql(KEYS, { headers: bearer(token) });
      // Each caller's answer is stored, and the upstream has vouched for it.
      for (const token of [onStalled, ...elsewhere]) expect((await read(token)).body.data).toEqual({ apiKeys: { nodes: [{ id: 'k1' }] } });
      const sent = upstream.requests.length;

      stalled.freeze();
      const rounds = 20;
      for (let i = 0; i < rounds; i++) {
        // The stalled node's caller: its count times out, or is not sent while the node is paused; it is answered all the same.
        expect((await read(onStalled)).status).toBe(200);
        for (const token of elsewhere) expect((await read(token)).body.data).toEqual({ apiKeys: { nodes: [{ id: 'k1' }] } });
      }
      // Every read of the others was a cache hit in Redis (no upstream call but the stalled node's caller's), and every one counted there.
      expect(upstream.requests.slice(sent).map((request) => request.headers.authorization)).toEqual(
        Array(rounds).fill(`Bearer ${onStalled}`),
      );
      const counts = await Promise.all(
        elsewhere.map(async (token) => Number(await redis.get(`part:rate:${callerKey(`Bearer ${token}`)}`))),
      );
      expect(counts).toEqual(Array(elsewhere.length).fill(1 + rounds));
    } finally {
      stalled.thaw();
      await cluster.close();
    }
  });
});
