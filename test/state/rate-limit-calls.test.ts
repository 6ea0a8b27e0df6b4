import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import type { StartOptions } from '../../src/server/start.js';
import { AUTH, bearer } from '../support/auth.js';
import { type Start, test } from '../support/fixtures.js';
import type { TestGateway } from '../support/gateway.js';
import { apiKeyList } from '../support/records.js';
import { describeInEachTopology, UNHURRIED_COMMAND_TIMEOUT_MS } from '../support/redis.js';
import { describeInEachStore } from '../support/state-modes.js';

/**
 * The rate limit in REST calls (RATE_LIMIT_UNIT=calls, the default), over real HTTP, in process and
 * in Redis alike: each operation charged its estimate before it runs, what it did not spend given
 * back after it ran, and the RateLimit headers in calls.
 */
const page = (first: number) => `{ apiKeys(first: ${first}) { nodes { id } } }`;

const post = (gateway: TestGateway, body: unknown, headers: Record<string, string> = AUTH) =>
  fetch(gateway.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json', 'x-cost': '1', ...headers },
    body: JSON.stringify(body),
  });

/** An answer's status, its RateLimit-Remaining, and what it cost. */
async function spent(response: Response) {
  const body = (await response.json()) as { extensions?: { cost?: unknown }; errors?: Array<{ message: string }> };
  return { status: response.status, remaining: response.headers.get('ratelimit-remaining'), cost: body.extensions?.cost };
}

describeInEachStore('the rate limit in REST calls', (startInStore) => {
  /** A caller may spend 6 calls a minute; the upstream holds `keys` API keys. */
  const start = (servers: Start, keys = 100, options: StartOptions = {}) =>
    startInStore(servers, apiKeyList(keys), { rateLimit: 6, rateLimitWindowMs: 60_000, ...options });

  test('charges each operation its estimate before it runs, and refuses one that does not fit what is left, with what is left', async ({
    start: servers,
  }) => {
    const { upstream, gateway } = await start(servers);
    // apiKeys(first: 100) is four upstream pages: four calls of six.
    expect(await spent(await post(gateway, { query: page(100) }))).toEqual({
      status: 200,
      remaining: null,
      cost: { estimatedCalls: 4, actualCalls: 4 },
    });
    const refused = await post(gateway, { query: page(100) });
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect([refused.status, refused.headers.get('ratelimit-limit'), refused.headers.get('ratelimit-remaining')]).toEqual([429, '6', '2']);
    expect(await refused.json()).toEqual({
      errors: [
        {
          message: `Too many upstream calls: this operation needs 4 of the 2 left of 6 per caller in each window (RATE_LIMIT). Retry after ${retryAfter} s.`,
          extensions: { code: 'RATE_LIMITED', retryAfter },
        },
      ],
      extensions: { cost: { estimatedCalls: 4, actualCalls: 0 } },
    });
    expect(upstream.requests).toHaveLength(4);
    // What is left still serves what fits in it: two pages of 25.
    expect((await spent(await post(gateway, { query: page(50) }))).status).toBe(200);
    expect((await post(gateway, { query: page(1) })).status).toBe(429);
    expect(upstream.requests).toHaveLength(6);
    // Another caller has its own six.
    expect((await post(gateway, { query: page(100) }, bearer('another'))).status).toBe(200);
  });

  test('gives back what an operation did not spend: a list that ends before the pages it could have taken', async ({ start: servers }) => {
    // Thirty keys: apiKeys(first: 100) is estimated four pages and takes two.
    const { gateway } = await start(servers, 30);
    expect(await spent(await post(gateway, { query: page(100) }))).toMatchObject({
      status: 200,
      cost: { estimatedCalls: 4, actualCalls: 2 },
    });
    expect(await spent(await post(gateway, { query: page(100) }))).toMatchObject({
      status: 200,
      cost: { estimatedCalls: 4, actualCalls: 2 },
    });
    // Two and two spent: two left, which a third such operation does not fit, though it would make only two.
    const third = await post(gateway, { query: page(100) });
    expect([third.status, third.headers.get('ratelimit-remaining')]).toEqual([429, '2']);
    expect((await post(gateway, { query: page(50) })).status).toBe(200);
  });

  test('counts every operation of a batch, each its own estimate', async ({ start: servers }) => {
    const { gateway } = await start(servers);
    const batch = await post(gateway, [{ query: page(50) }, { query: page(75) }, { query: page(25) }]);
    const answers = (await batch.json()) as Array<{ errors?: Array<{ extensions: { code: string } }>; extensions: { cost: unknown } }>;
    // Two, then three, then one: six of six.
    expect(answers.map((answer) => [answer.errors?.[0]?.extensions.code ?? 'ok', answer.extensions.cost])).toEqual([
      ['ok', { estimatedCalls: 2, actualCalls: 2 }],
      ['ok', { estimatedCalls: 3, actualCalls: 3 }],
      ['ok', { estimatedCalls: 1, actualCalls: 1 }],
    ]);
    expect((await post(gateway, { query: page(1) })).status).toBe(429);
  });

  test('never charges introspection, { __typename }, a refusal before running, or a read cache hit', async ({ start: servers }) => {
    const { gateway, upstream } = await start(servers, 100, { cacheTtlMs: 60_000 });
    expect((await post(gateway, { query: page(100) })).status).toBe(200);
    expect((await post(gateway, { query: page(50) })).status).toBe(200);
    // Six of six spent.
    expect((await post(gateway, { query: page(1) })).status).toBe(429);
    const free = [
      await post(gateway, { query: '{ __schema { queryType { name } } }' }),
      await post(gateway, { query: '{ __typename }' }),
      await post(gateway, { query: '{ nothing }' }),
      // Kept by the cache two requests ago: answered from it, no call made.
      await post(gateway, { query: page(50) }),
    ];
    expect(await Promise.all(free.map(spent))).toEqual([
      { status: 200, remaining: null, cost: { estimatedCalls: 0, actualCalls: 0 } },
      { status: 200, remaining: null, cost: { estimatedCalls: 0, actualCalls: 0 } },
      { status: 400, remaining: null, cost: { estimatedCalls: 0, actualCalls: 0 } },
      { status: 200, remaining: null, cost: { estimatedCalls: 0, actualCalls: 0 } },
    ]);
    expect(upstream.requests).toHaveLength(6);
  });

  test('charges a read that joined an identical one in flight to each request that shared it', async ({ start: servers }) => {
    const { gateway, upstream } = await start(servers);
    upstream.answer((request) => ({ ...apiKeyList(100)(request), delayMs: 100 }));
    const shared = await Promise.all([post(gateway, { query: page(25) }), post(gateway, { query: page(25) })]);
    expect(upstream.requests).toHaveLength(1);
    expect((await Promise.all(shared.map(spent))).map(({ cost }) => cost)).toEqual([
      { estimatedCalls: 1, actualCalls: 1 },
      { estimatedCalls: 1, actualCalls: 1 },
    ]);
    // Two of six spent: four left, which apiKeys(first: 100) fits exactly.
    expect((await post(gateway, { query: page(100) })).status).toBe(200);
    expect((await post(gateway, { query: page(1) })).status).toBe(429);
  });
});

describeInEachTopology(
  'the rate limit in REST calls, shared by two gateways',
  (redis) => {
    test('is one count for both: what one spent, the other does not give again', async ({ start }) => {
      const upstream = await start.upstream(apiKeyList(100));
      const options = {
        upstreamUrl: new URL(upstream.url),
        ...redis().settings,
        redisCommandTimeoutMs: UNHURRIED_COMMAND_TIMEOUT_MS,
        redisKeyPrefix: `test-${randomUUID()}:`,
        rateLimit: 6,
        rateLimitWindowMs: 60_000,
      };
      const [one, two] = [await start.gateway(options), await start.gateway(options)];
      expect((await post(one, { query: page(100) })).status).toBe(200);
      const refused = await post(two, { query: page(100) });
      expect([refused.status, refused.headers.get('ratelimit-remaining')]).toEqual([429, '2']);
      expect((await post(two, { query: page(50) })).status).toBe(200);
      expect((await post(one, { query: page(1) })).status).toBe(429);
    });
  },
  { topologies: ['one Redis', 'a Redis Cluster'] },
);
