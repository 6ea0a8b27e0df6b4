import { expect } from 'vitest';
import type { StartOptions } from '../../src/server/start.js';
import { AUTH, bearer } from '../support/auth.js';
import { type Start, test } from '../support/fixtures.js';
import type { TestGateway } from '../support/gateway.js';
import { apiKeyPage, apiKeys } from '../support/records.js';
import { describeInEachStore } from '../support/state-modes.js';

/** Per-caller rate limits (RATE_LIMIT per RATE_LIMIT_WINDOW_MS), over real HTTP, in process and in Redis alike. */
const KEYS = '{ apiKeys(first: 1) { nodes { id } } }';

const post = (gateway: TestGateway, body: unknown, headers: Record<string, string> = AUTH) =>
  fetch(gateway.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json', ...headers },
    body: JSON.stringify(body),
  });

describeInEachStore('the rate limit', (startInStore) => {
  const start = (servers: Start, options: StartOptions = {}) =>
    startInStore(servers, () => ({ body: apiKeyPage(apiKeys(1)) }), { rateLimit: 3, rateLimitUnit: 'operations', ...options });

  test('refuses the operation past the limit with 429, Retry-After, the RateLimit headers and RATE_LIMITED, before anything goes upstream', async ({
    start: servers,
  }) => {
    const { upstream, gateway } = await start(servers);
    for (let i = 0; i < 3; i++) expect((await post(gateway, { query: KEYS })).status).toBe(200);
    const refused = await post(gateway, { query: KEYS });
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60).toBe(true);
    expect([refused.status, refused.headers.get('ratelimit-limit'), refused.headers.get('ratelimit-remaining')]).toEqual([429, '3', '0']);
    expect(refused.headers.get('ratelimit-reset')).toBe(String(retryAfter));
    expect(await refused.json()).toEqual({
      errors: [
        {
          message: `Too many operations: at most 3 per caller in each window (RATE_LIMIT). Retry after ${retryAfter} s.`,
          extensions: { code: 'RATE_LIMITED', retryAfter },
        },
      ],
    });
    expect(upstream.requests).toHaveLength(3);
    // Another caller has its own allowance.
    expect((await post(gateway, { query: KEYS }, bearer('another'))).status).toBe(200);
  });

  test('counts every operation of a batch', async ({ start: servers }) => {
    const { gateway } = await start(servers);
    const batch = await post(gateway, [{ query: KEYS }, { query: KEYS }, { query: KEYS }, { query: KEYS }]);
    const codes = ((await batch.json()) as Array<{ errors?: Array<{ extensions: { code: string } }> }>).map(
      (answer) => answer.errors?.[0]?.extensions.code ?? 'ok',
    );
    expect(codes.toSorted()).toEqual(['RATE_LIMITED', 'ok', 'ok', 'ok']);
  });

  test('never limits introspection, /health or /ready', async ({ start: servers }) => {
    const { gateway } = await start(servers, { rateLimit: 1 });
    await post(gateway, { query: KEYS });
    expect((await post(gateway, { query: KEYS })).status).toBe(429);
    const introspection = await post(gateway, { query: '{ __schema { queryType { name } } }' });
    expect([introspection.status, await introspection.json()]).toEqual([200, { data: { __schema: { queryType: { name: 'Query' } } } }]);
    // Text that merely mentions introspection is still refused once parsed.
    expect((await post(gateway, { query: `${KEYS} # __schema` })).status).toBe(429);
    const origin = new URL(gateway.url).origin;
    expect([(await fetch(`${origin}/health`)).status, (await fetch(`${origin}/ready`)).status]).toEqual([200, 200]);
  });

  test('tells callers without a token apart by address; X-Forwarded-For only as far as TRUST_PROXY_HOPS', async ({ start: servers }) => {
    const { gateway } = await start(servers, { rateLimit: 1 });
    const anonymous = (forwarded: string) => post(gateway, { query: KEYS }, { 'x-forwarded-for': forwarded });
    expect((await anonymous('203.0.113.1')).status).toBe(200);
    // Without a trusted proxy the header is the caller's to forge: the connection's address counts.
    expect((await anonymous('203.0.113.2')).status).toBe(429);

    const { gateway: proxied } = await start(servers, { rateLimit: 1, trustProxyHops: 1 });
    const behindProxy = (forwarded: string) => post(proxied, { query: KEYS }, { 'x-forwarded-for': forwarded });
    expect((await behindProxy('198.51.100.7, 203.0.113.1')).status).toBe(200);
    expect((await behindProxy('198.51.100.8, 203.0.113.1')).status).toBe(429);
    expect((await behindProxy('203.0.113.9')).status).toBe(200);
  });

  test('counts one caller however the scheme and the spaces of its Authorization header are spelt', async ({ start: servers }) => {
    const { upstream, gateway } = await start(servers, { rateLimit: 5 });
    const spellings = ['Bearer same-token', 'bearer same-token', 'BEARER same-token', 'Bearer   same-token', 'bEaReR same-token'];
    const statuses: number[] = [];
    for (let round = 0; round < 6; round++) {
      for (const authorization of spellings) statuses.push((await post(gateway, { query: KEYS }, { authorization })).status);
    }
    expect(statuses.filter((status) => status === 200)).toHaveLength(5);
    // The upstream sees one spelling too.
    expect(new Set(upstream.requests.map((request) => request.headers.authorization))).toEqual(new Set(['Bearer same-token']));
  });

  test('counts tokens the upstream refuses against their address: rotating them buys no fresh allowance', async ({ start: servers }) => {
    const { upstream, gateway } = await start(servers, { rateLimit: 5 });
    upstream.answer(() => ({ status: 401, body: { success: false, result: null, errors: [{ message: 'invalid token' }], links: {} } }));
    const statuses: number[] = [];
    for (let i = 0; i < 30; i++) statuses.push((await post(gateway, { query: KEYS }, bearer(`rotating-${i}`))).status);
    expect(statuses.filter((status) => status !== 429)).toHaveLength(5);
    expect(upstream.requests).toHaveLength(5);
  });

  test('counts against an address only what the upstream refused or never saw: new callers behind it are served', async ({
    start: servers,
  }) => {
    const { upstream, gateway } = await start(servers, { rateLimit: 6 });
    // One new caller's first page sends five queries at once, all in flight together, all answered: none stays counted against the address.
    upstream.answer(() => ({ body: apiKeyPage(apiKeys(1)), delayMs: 100 }));
    const first = await Promise.all(Array.from({ length: 5 }, () => post(gateway, { query: KEYS }, bearer('colleague-1'))));
    expect(first.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 200]);
    // Two more new callers behind the same address get their first answers.
    const others = [
      await post(gateway, { query: KEYS }, bearer('colleague-2')),
      await post(gateway, { query: KEYS }, bearer('colleague-3')),
    ];
    expect(others.map((answer) => answer.status)).toEqual([200, 200]);
    // Operations that never reached the upstream (a document that does not validate) stay counted.
    upstream.reset();
    for (let i = 0; i < 6; i++) await post(gateway, { query: '{ nothing }' }, bearer(`junk-${i}`));
    expect((await post(gateway, { query: KEYS }, bearer('colleague-4'))).status).toBe(429);
    expect(upstream.requests).toEqual([]);
  });

  test('never limits { __typename }, as it never limits introspection', async ({ start: servers }) => {
    const { gateway } = await start(servers, { rateLimit: 1 });
    await post(gateway, { query: KEYS });
    expect((await post(gateway, { query: KEYS })).status).toBe(429);
    const answer = await post(gateway, { query: '{ __typename }' });
    expect([answer.status, await answer.json()]).toEqual([200, { data: { __typename: 'Query' } }]);
  });

  test('takes an X-Forwarded-For entry that is no IP address for the connection’s, behind TRUST_PROXY_HOPS', async ({ start: servers }) => {
    const { gateway } = await start(servers, { rateLimit: 2, trustProxyHops: 1 });
    const forged = (i: number) => post(gateway, { query: KEYS }, { 'x-forwarded-for': `${'x'.repeat(12_000)}-${i}` });
    // Each forged entry is no address: all of them are the connection's, one caller, not a new one each.
    expect([(await forged(1)).status, (await forged(2)).status, (await forged(3)).status]).toEqual([200, 200, 429]);
  });

  test('RATE_LIMIT=0 turns it off', async ({ start: servers }) => {
    const { gateway } = await start(servers, { rateLimit: 0 });
    for (let i = 0; i < 5; i++) expect((await post(gateway, { query: KEYS })).status).toBe(200);
  });
});
