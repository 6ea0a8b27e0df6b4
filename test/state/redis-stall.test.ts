import { Redis } from 'ioredis';
import { expect } from 'vitest';
import { bearer } from '../support/auth.js';
import { test } from '../support/fixtures.js';
import { metricLines } from '../support/gateway.js';
import { heapAfterGc } from '../support/heap.js';
import { apiKeyList } from '../support/records.js';
import { describeWithRedis, startRedis } from '../support/redis.js';

/**
 * A Redis that stalls rather than dies (SIGSTOP: its socket stays open, nothing answers), probed
 * from outside over real HTTP: each request waits for it at most one command timeout, the gateway
 * stops sending to it and keeps nothing for it meanwhile, and what timed out never runs late, once
 * it answers again.
 */
const COMMAND_TIMEOUT_MS = 100;
const WORKERS = 4;
const REQUESTS_PER_WORKER = 150;
/**
 * What the heap may grow by while Redis stalls under that load (600 requests of answers of 10 KB),
 * the recording upstream's list of requests included: 0.9 to 4.8 MB was measured. Before the stores
 * paused and dropped the commands waiting for a stalled Redis, it grew by about 25 KB a request, 15 MB.
 */
const HEAP_GROWTH_BOUND = 8 * 2 ** 20;

describeWithRedis('a stalled Redis', () => {
  test('costs a request one command timeout at most, holds and sends nothing while it stalls, and runs nothing late', {
    timeout: 60_000,
  }, async ({ start }) => {
    const redis = await startRedis();
    const inspect = new Redis(redis.url);
    const upstream = await start.upstream(apiKeyList(100));
    const gateway = await start.gateway({
      upstreamUrl: new URL(upstream.url),
      redisUrl: new URL(redis.url),
      redisCommandTimeoutMs: COMMAND_TIMEOUT_MS,
      redisKeyPrefix: 'stall:',
      cacheTtlMs: 60_000,
      rateLimit: 100_000,
    });
    try {
      // Distinct callers and reads of 100 keys: every request would count, look up and store an answer of about 10 KB.
      const load = (caller: string) =>
        Promise.all(
          Array.from({ length: WORKERS }, async (_, worker) => {
            const statuses: number[] = [];
            for (let i = 0; i < REQUESTS_PER_WORKER; i++) {
              const query = `{ apiKeys(first: 100) { nodes { id name permissions createdBy createdTime } } n${i}: __typename }`;
              statuses.push((await gateway.graphql(query, { headers: bearer(`${caller}-${worker}`) })).status);
            }
            return statuses;
          }),
        );
      // Warm: the connection is up, the stores work, the code is compiled, the caches are full.
      // The same callers as below, whom the upstream has vouched for: their operations count against them alone.
      expect((await load('stall')).flat().filter((status) => status !== 200)).toEqual([]);
      await inspect.flushall();
      const processed = async () => Number(/total_commands_processed:(\d+)/.exec(await inspect.info('stats'))![1]);

      const timeouts = async () =>
        (await metricLines(gateway, 'gateway_shared_state_timeouts_total')).reduce((sum, line) => sum + Number(line.split(' ')[1]), 0);
      const timedOutBefore = await timeouts();
      redis.freeze();
      const frozenAt = heapAfterGc();
      expect((await load('stall')).flat().filter((status) => status !== 200)).toEqual([]);
      // Still stalled: what the gateway holds for Redis is still held.
      expect(heapAfterGc() - frozenAt).toBeLessThan(HEAP_GROWTH_BOUND);
      // One command timed out for each request in flight when Redis stalled, at most; the others never waited for it.
      expect((await timeouts()) - timedOutBefore).toBeLessThanOrEqual(WORKERS);

      redis.thaw();
      const before = await processed();
      await new Promise((resolve) => setTimeout(resolve, 500));
      // Nothing that timed out ran once Redis answered again: no answer stored, no count taken, by the stalled commands.
      expect(await inspect.keys('stall:*')).toEqual([]);
      // And little was sent while it stalled: at most the commands in flight when it stalled, and what reconnecting asks.
      expect((await processed()) - before).toBeLessThan(WORKERS * 4 + 10);
    } finally {
      inspect.disconnect();
      redis.thaw();
      await redis.close();
    }
  });
});
