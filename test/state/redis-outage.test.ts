import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'vitest';
import { bearer } from '../support/auth.js';
import { test } from '../support/fixtures.js';
import type { TestGateway } from '../support/gateway.js';
import { apiKeyPage, apiKeys } from '../support/records.js';
import { describeWithRedis, startRedis } from '../support/redis.js';

/**
 * redis-server killed under load and started again: no request fails or waits for it longer than
 * REDIS_COMMAND_TIMEOUT_MS (the stores answer without it), the failures are counted, and the two
 * gateways share their state again once it is back.
 */
const KEYS = '{ apiKeys(first: 1) { nodes { id } } }';
const COMMAND_TIMEOUT_MS = 100;
/** Far above a request's own time here (an instant upstream), far below what a queue waiting for Redis to return would take. */
const SLOWEST_ALLOWED_MS = 10 * COMMAND_TIMEOUT_MS;

describeWithRedis('Redis failing under load', () => {
  test('is never a failed or a stalled request, and sharing resumes when it is back', { timeout: 60_000 }, async ({ start }) => {
    const redis = await startRedis();
    const upstream = await start.upstream(() => ({ body: apiKeyPage(apiKeys(1)) }));
    const options = {
      upstreamUrl: new URL(upstream.url),
      redisUrl: new URL(redis.url),
      redisCommandTimeoutMs: COMMAND_TIMEOUT_MS,
      cacheTtlMs: 60_000,
      rateLimit: 100_000,
    };
    const [one, two] = [await start.gateway(options), await start.gateway(options)];
    try {
      const outcomes: Array<{ status: number; ok: boolean; ms: number }> = [];
      let running = true;
      const worker = async (gateway: TestGateway, n: number) => {
        for (let i = 0; running; i++) {
          const started = performance.now();
          // Distinct callers and reads, so that every request reaches the stores.
          const answer = await gateway.graphql(KEYS.replace('first: 1', `first: ${1 + (i % 20)}`), { headers: bearer(`load-${n}`) });
          outcomes.push({ status: answer.status, ok: answer.body.data?.apiKeys !== null, ms: performance.now() - started });
        }
      };
      const load = Promise.all([0, 1, 2, 3].map((n) => worker(n % 2 ? one : two, n)));
      await sleep(300);
      await redis.kill();
      await sleep(1_500);
      await redis.restart();
      await sleep(300);
      running = false;
      await load;

      expect(outcomes.length).toBeGreaterThan(50);
      expect(outcomes.filter(({ status, ok }) => status !== 200 || !ok)).toEqual([]);
      expect(Math.max(...outcomes.map(({ ms }) => ms))).toBeLessThan(SLOWEST_ALLOWED_MS);
      const errors = await (await fetch(one.metricsUrl)).text();
      expect(errors).toMatch(/^gateway_shared_state_errors_total\{store="responseCache"\} [1-9]\d*$/m);

      // Back: what one gateway stores, the other finds.
      await sleep(1_500);
      const before = upstream.requests.length;
      await one.graphql('{ apiKeys(first: 42) { nodes { id } } }', { headers: bearer('after') });
      await two.graphql('{ apiKeys(first: 42) { nodes { id } } }', { headers: bearer('after') });
      expect(upstream.requests.length - before).toBe(1);
    } finally {
      await redis.close();
    }
  });
});
