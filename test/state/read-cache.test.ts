import type { ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { expect } from 'vitest';
import type { StartOptions } from '../../src/server/start.js';
import { AUTH, bearer } from '../support/auth.js';
import { type Start, test } from '../support/fixtures.js';
import type { TestGateway } from '../support/gateway.js';
import { captureLogs } from '../support/logs.js';
import { envelope } from '../support/recording-upstream.js';
import { apiKeyPage, apiKeys, categoryRecord } from '../support/records.js';
import { describeWithRedis, startRedis } from '../support/redis.js';
import { describeInEachStore } from '../support/state-modes.js';

/** The per-caller read cache (CACHE_TTL_MS), over real HTTP, in process and in Redis alike. */
const KEYS = '{ apiKeys(first: 2) { nodes { id name } } }';
const RENAME = 'mutation { updateCategory(input: { id: "cat_1", name: "N" }) { category { id } } }';

/** An upstream whose API keys change with every call, so that a fresh answer can be told from a cached one. */
const changingKeys = (request: { method: string }, index: number) =>
  request.method === 'PATCH' ? { body: envelope(categoryRecord()) } : { body: apiKeyPage(apiKeys(2, 1 + 10 * index)) };

const names = (answer: Awaited<ReturnType<TestGateway['graphql']>>) =>
  (answer.body.data?.apiKeys as { nodes: Array<{ name: string }> } | null)?.nodes.map((node) => node.name);

/** `gateway_response_cache_total` by outcome. */
async function lookups(gateway: TestGateway): Promise<Record<string, number>> {
  const text = await (await fetch(gateway.metricsUrl)).text();
  return Object.fromEntries(
    [...text.matchAll(/^gateway_response_cache_total\{outcome="(\w+)"\} (\d+)$/gm)].map(([, outcome, n]) => [outcome, Number(n)]),
  );
}

describeInEachStore('the read cache', (startInStore) => {
  /** A gateway with a cache of a minute (unless `options` say otherwise), keys of its own, over an upstream of its own. */
  const start = (servers: Start, options: StartOptions = {}) => startInStore(servers, changingKeys, { cacheTtlMs: 60_000, ...options });

  test('answers a read the same caller repeats from the cache, without an upstream call', async ({ start: servers }) => {
    const { upstream, gateway } = await start(servers);
    const first = await gateway.graphql(KEYS, { headers: AUTH });
    const again = await gateway.graphql(KEYS, { headers: AUTH });
    expect(names(first)).toEqual(['Key 1', 'Key 2']);
    expect(again.body).toEqual(first.body);
    expect(upstream.requests).toHaveLength(1);
    expect(await lookups(gateway)).toEqual({ miss: 1, hit: 1 });
  });

  test('never answers another caller from it, nor a caller without a token', async ({ start: servers }) => {
    const { upstream, gateway } = await start(servers);
    await gateway.graphql(KEYS, { headers: AUTH });
    expect(names(await gateway.graphql(KEYS, { headers: bearer('someone-else') }))).toEqual(['Key 11', 'Key 12']);
    expect((await gateway.graphql(KEYS)).body.errors?.[0]?.extensions).toEqual({ code: 'UNAUTHENTICATED' });
    expect(upstream.requests.map((request) => request.headers.authorization)).toEqual([AUTH.authorization, 'Bearer someone-else']);
  });

  test('never keeps an answer the upstream did not give this caller, nor lets one name a label of the metrics', async ({
    start: servers,
  }) => {
    const { upstream, gateway } = await start(servers);
    // No upstream call: the token was never checked, so the answer vouches for nothing and is not kept.
    for (let i = 0; i < 3; i++) {
      const junk = await gateway.graphql(`query Junk${i} { __typename }`, { headers: bearer(`junk-${i}`) });
      expect(junk.body).toEqual({ data: { __typename: 'Query' } });
      await gateway.graphql(`query Junk${i} { __typename }`, { headers: bearer(`junk-${i}`) });
    }
    expect(await lookups(gateway)).toEqual({ miss: 6 });
    // Refused by the upstream: not kept either.
    upstream.answer(() => ({ status: 401, body: { success: false, result: null, errors: [{ message: 'invalid token' }], links: {} } }));
    await gateway.graphql(KEYS, { headers: bearer('refused') });
    await gateway.graphql(KEYS, { headers: bearer('refused') });
    expect(upstream.requests).toHaveLength(2);
    // A hit was the upstream's answer to an earlier request: it names no label of its own.
    upstream.answer(changingKeys);
    await gateway.graphql('query Checked { apiKeys(first: 2) { nodes { id } } }', { headers: AUTH });
    await gateway.graphql('query Checked { apiKeys(first: 2) { nodes { id } } }', { headers: AUTH });
    const text = await (await fetch(gateway.metricsUrl)).text();
    expect(text.match(/^gateway_graphql_requests_total\{operation_name="(\w+)".*$/gm)?.toSorted()).toEqual([
      'gateway_graphql_requests_total{operation_name="Checked",operation_type="query",outcome="ok"} 1',
      'gateway_graphql_requests_total{operation_name="anonymous",operation_type="query",outcome="error"} 2',
      'gateway_graphql_requests_total{operation_name="other",operation_type="query",outcome="ok"} 7',
    ]);
  });

  test('never keeps an answer with an error', async ({ start: servers }) => {
    const { upstream, gateway } = await start(servers);
    upstream.answer((_request, index) =>
      index === 0
        ? { status: 500, body: { success: false, result: null, errors: [{ message: 'boom' }], links: {} } }
        : changingKeys(_request, index),
    );
    expect((await gateway.graphql(KEYS, { headers: AUTH })).body.errors?.[0]?.extensions).toMatchObject({ code: 'UPSTREAM_ERROR' });
    expect(names(await gateway.graphql(KEYS, { headers: AUTH }))).toEqual(['Key 11', 'Key 12']);
    expect(upstream.requests).toHaveLength(2);
  });

  test("a mutation drops its caller's cached reads, not another caller's", async ({ start: servers }) => {
    const { upstream, gateway } = await start(servers);
    await gateway.graphql(KEYS, { headers: AUTH });
    await gateway.graphql(KEYS, { headers: bearer('other') });
    await gateway.graphql(RENAME, { headers: AUTH });
    expect(names(await gateway.graphql(KEYS, { headers: AUTH }))).toEqual(['Key 31', 'Key 32']);
    expect(names(await gateway.graphql(KEYS, { headers: bearer('other') }))).toEqual(['Key 11', 'Key 12']);
    expect(upstream.requests.map((request) => request.method)).toEqual(['GET', 'GET', 'PATCH', 'GET']);
    // A mutation is no lookup: the three misses and the hit are the reads'.
    expect(await lookups(gateway)).toEqual({ miss: 3, hit: 1 });
  });

  test('counts no mutation as a lookup, whichever operation of its document it is, refused before it runs or not', async ({
    start: servers,
  }) => {
    const { gateway } = await start(servers);
    const logs = captureLogs('info');
    const logged = await start(servers, { logger: logs.logger });
    for (const target of [gateway, logged.gateway]) {
      await target.graphql(RENAME, { headers: AUTH });
      await target.graphql('# a comment first\nmutation Nothing { nothing }', { headers: AUTH });
      await target.graphql(`query Read ${KEYS} ${RENAME.replace('mutation', 'mutation Write')}`, {
        headers: AUTH,
        operationName: 'Write',
      });
    }
    expect(await lookups(gateway)).toEqual({});
    expect(logs.lines('graphql request').map((line) => line.cache)).toEqual([undefined, undefined, undefined]);
  });

  /**
   * The upstream's first GET is held until `release()`: a read in flight while a mutation runs. Its
   * keys are numbered by the call's place, so the answer read before the mutation can be told.
   */
  const heldFirstRead = () => {
    let release = () => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    let held = false;
    const script = (request: { method: string }, index: number) => {
      const answer = changingKeys(request, index);
      if (held || request.method !== 'GET') return answer;
      held = true;
      return (res: ServerResponse) =>
        void released.then(() => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer.body)));
    };
    return { script, release };
  };

  test('never stores a read that was in flight while its caller’s mutation ran, alone or in a batch', async ({ start: servers }) => {
    for (const batched of [false, true]) {
      const held = heldFirstRead();
      const { upstream, gateway } = await start(servers);
      upstream.answer(held.script);
      if (batched) {
        const batch = fetch(gateway.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...AUTH },
          body: JSON.stringify([{ query: KEYS }, { query: RENAME }]),
        });
        await expect.poll(() => upstream.requests.map((request) => request.method).toSorted()).toEqual(['GET', 'PATCH']);
        held.release();
        await batch;
      } else {
        const read = gateway.graphql(KEYS, { headers: AUTH });
        await expect.poll(() => upstream.requests.length).toBe(1);
        await gateway.graphql(RENAME, { headers: AUTH });
        held.release();
        expect(names(await read)).toEqual(['Key 1', 'Key 2']);
      }
      // The answer read before the mutation was not kept: this read goes upstream.
      expect(names(await gateway.graphql(KEYS, { headers: AUTH }))).toEqual(['Key 21', 'Key 22']);
    }
  });

  test('never gives a read sent after its caller’s mutation the answer of a read in flight since before it', async ({ start: servers }) => {
    const held = heldFirstRead();
    const { upstream, gateway } = await start(servers);
    upstream.answer(held.script);
    const early = gateway.graphql(KEYS, { headers: AUTH });
    await expect.poll(() => upstream.requests.length).toBe(1);
    await gateway.graphql(RENAME, { headers: AUTH });
    // Identical, and asking for a fresh answer: it must not join the read in flight since before the mutation.
    const late = await gateway.graphql(KEYS, { headers: { ...AUTH, 'cache-control': 'no-cache' } });
    expect(names(late)).toEqual(['Key 21', 'Key 22']);
    held.release();
    expect(names(await early)).toEqual(['Key 1', 'Key 2']);
    expect(names(await gateway.graphql(KEYS, { headers: AUTH }))).toEqual(['Key 21', 'Key 22']);
    expect(upstream.requests.map((request) => request.method)).toEqual(['GET', 'PATCH', 'GET']);
  });

  test('Cache-Control: no-cache reads fresh from the upstream and refreshes the entry', async ({ start: servers }) => {
    const { upstream, gateway } = await start(servers);
    await gateway.graphql(KEYS, { headers: AUTH });
    expect(names(await gateway.graphql(KEYS, { headers: { ...AUTH, 'cache-control': 'no-cache' } }))).toEqual(['Key 11', 'Key 12']);
    expect(names(await gateway.graphql(KEYS, { headers: AUTH }))).toEqual(['Key 11', 'Key 12']);
    expect(upstream.requests).toHaveLength(2);
    expect(await lookups(gateway)).toEqual({ miss: 1, bypass: 1, hit: 1 });
  });

  test('forgets an answer after CACHE_TTL_MS', async ({ start: servers }) => {
    const { upstream, gateway } = await start(servers, { cacheTtlMs: 100 });
    await gateway.graphql(KEYS, { headers: AUTH });
    await sleep(200);
    expect(names(await gateway.graphql(KEYS, { headers: AUTH }))).toEqual(['Key 11', 'Key 12']);
    expect(upstream.requests).toHaveLength(2);
  });

  test('with CACHE_TTL_MS=0, the default, keeps nothing', async ({ start: servers }) => {
    const { upstream, gateway } = await start(servers, { cacheTtlMs: 0 });
    await gateway.graphql(KEYS, { headers: AUTH });
    await gateway.graphql(KEYS, { headers: AUTH });
    expect(upstream.requests).toHaveLength(2);
    expect(await lookups(gateway)).toEqual({});
  });
});

describeWithRedis('the read cache in Redis', () => {
  test('sheds a caller’s expired answers as it writes new ones, instead of keeping every one as long as it writes', async ({ start }) => {
    const redis = await startRedis();
    const inspect = new Redis(redis.url);
    try {
      const upstream = await start.upstream(changingKeys);
      const gateway = await start.gateway({ upstreamUrl: new URL(upstream.url), redisUrl: new URL(redis.url), cacheTtlMs: 300 });
      // A read a different one every 50 ms for 1.5 s: at most about 6 are alive at a time.
      for (let i = 0; i < 30; i++) {
        await gateway.graphql(`{ apiKeys(first: ${1 + i}) { nodes { id } } }`, { headers: AUTH });
        await sleep(50);
      }
      const [answers] = await inspect.keys('*answers');
      expect(answers).toBeDefined();
      expect(await inspect.hlen(answers!)).toBeLessThanOrEqual(12);
    } finally {
      inspect.disconnect();
      await redis.close();
    }
  });
});
