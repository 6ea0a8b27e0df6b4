import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'vitest';
import type { StartOptions } from '../../src/server/start.js';
import { AUTH, bearer } from '../support/auth.js';
import { type Start, test } from '../support/fixtures.js';
import type { TestGateway } from '../support/gateway.js';
import { envelope } from '../support/recording-upstream.js';
import { apiKeyPage, apiKeys, categoryRecord } from '../support/records.js';
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
