import fc from 'fast-check';
import { describe, expect } from 'vitest';
import { loadSettings } from '../../src/config/load.js';
import { AUTH, bearer } from '../support/auth.js';
import { type Start, test } from '../support/fixtures.js';
import { metricLines } from '../support/gateway.js';
import { partsOf, type ReceivedPart } from '../support/incremental.js';
import { rawHttp } from '../support/raw-http.js';
import type { Script } from '../support/recording-upstream.js';
import { envelope } from '../support/recording-upstream.js';
import { apiKeyList, folderRecord } from '../support/records.js';

/**
 * Headers both ways (FORWARD_HEADERS, RETURN_HEADERS), over real HTTP against a recording upstream:
 * what reaches each REST call, and the one merged line of each header the client gets back.
 */
const RETURNED = [
  'ratelimit-remaining',
  'ratelimit-limit',
  'ratelimit-reset',
  'x-ratelimit-remaining',
  'retry-after',
  'cache-control',
  'deprecation',
  'sunset',
  'link',
  'x-api-version',
];

/** apiKeys(first: 75): three upstream pages of 25, each call's answer with the headers `headersOf` gives it (by its place). */
const threePages = '{ apiKeys(first: 75) { nodes { id } } }';

function pagesWith(headersOf: (index: number) => Record<string, string>, delayOf: (index: number) => number = () => 0): Script {
  const list = apiKeyList(75);
  return (request, index) => ({ ...list(request), headers: headersOf(index), delayMs: delayOf(index) });
}

async function gatewayWith(start: Start, script: Script, options: { forwardHeaders?: string; cacheTtlMs?: number } = {}) {
  const upstream = await start.upstream(script);
  const settings = loadSettings({
    FORWARD_HEADERS: options.forwardHeaders ?? 'accept-language, x-tenant-id=x-vms-tenant',
    RETURN_HEADERS: RETURNED.join(','),
  });
  const gateway = await start.gateway({
    upstreamUrl: new URL(upstream.url),
    forwardHeaders: settings.forwardHeaders,
    returnHeaders: settings.returnHeaders,
    cacheTtlMs: options.cacheTtlMs ?? 0,
    corsOrigins: ['https://app.example'],
  });
  return { upstream, gateway };
}

/** The returned headers of an answer, each as one line. */
const returned = (headers: Headers) =>
  Object.fromEntries(RETURNED.flatMap((name) => (headers.has(name) ? [[name, headers.get(name)]] : [])));

describe('headers both ways', () => {
  test('refuses at start a list that names a hop-by-hop header, Authorization, a cookie or no header at all, naming the setting', () => {
    const refusals = {
      FORWARD_HEADERS: ['host', 'transfer-encoding', 'authorization', 'cookie', 'x y', 'a=x-request-id', 'a=b, c=b'],
      RETURN_HEADERS: ['upgrade', 'set-cookie', 'content-type', 'access-control-allow-origin', 'x-content-type-options'],
    };
    const messages = Object.entries(refusals).flatMap(([variable, values]) =>
      values.map((value) => {
        try {
          loadSettings({ [variable]: value });
          return `${variable}=${value}: started`;
        } catch (error) {
          return (error as Error).message;
        }
      }),
    );
    expect(messages).toEqual([
      'Invalid configuration: FORWARD_HEADERS may not name host, the connection’s own.',
      'Invalid configuration: FORWARD_HEADERS may not name transfer-encoding, a hop-by-hop header.',
      'Invalid configuration: FORWARD_HEADERS may not name authorization, which the bearer forwarding owns.',
      'Invalid configuration: FORWARD_HEADERS may not name cookie, which the bearer-only contract never carries.',
      'Invalid configuration: FORWARD_HEADERS may not name "x y", which is not a header name.',
      'Invalid configuration: FORWARD_HEADERS may not name x-request-id, which the gateway sets on every call.',
      'Invalid configuration: FORWARD_HEADERS may not name b twice.',
      'Invalid configuration: RETURN_HEADERS may not name upgrade, a hop-by-hop header.',
      'Invalid configuration: RETURN_HEADERS may not name set-cookie, which the bearer-only contract never carries.',
      'Invalid configuration: RETURN_HEADERS may not name content-type, the gateway’s own.',
      'Invalid configuration: RETURN_HEADERS may not name access-control-allow-origin, the gateway’s own (CORS).',
      'Invalid configuration: RETURN_HEADERS may not name x-content-type-options, one of the gateway’s security headers.',
    ]);
  });

  test('refuses at start a FORWARD_HEADERS entry under the name of any header the gateway sends upstream itself', async ({ start }) => {
    const { upstream, gateway } = await gatewayWith(
      start,
      pagesWith(() => ({})),
    );
    await gateway.graphql('{ apiKeys(first: 1) { nodes { id } } }', { headers: { ...AUTH, 'accept-language': 'fr' } });
    await gateway.graphql('mutation { updateCategory(input: { id: "cat_1", name: "N" }) { category { id } } }', { headers: AUTH });
    const sent = new Set(upstream.requests.flatMap((request) => Object.keys(request.headers)));
    expect(sent).toContain('content-type');
    const taken = [...sent].filter((name) => !['accept-language', 'x-vms-tenant'].includes(name));
    const started = taken.filter((name) => {
      try {
        loadSettings({ FORWARD_HEADERS: `x-a=${name}` });
        return true;
      } catch {
        return false;
      }
    });
    expect(started).toEqual([]);
  });

  test('sends a listed header with every call, under its upstream name; never an unlisted one, one Connection names, or an unsendable value', async ({
    start,
  }) => {
    const { upstream, gateway } = await gatewayWith(
      start,
      pagesWith(() => ({})),
    );
    await gateway.graphql(threePages, { headers: { ...AUTH, 'accept-language': 'fr-CH', 'x-tenant-id': 't-7', 'x-secret': 'no' } });
    const sent = (name: string) => upstream.requests.map((request) => request.headers[name]);
    expect([sent('accept-language'), sent('x-vms-tenant'), sent('x-tenant-id'), sent('x-secret')]).toEqual([
      ['fr-CH', 'fr-CH', 'fr-CH'],
      ['t-7', 't-7', 't-7'],
      [undefined, undefined, undefined],
      [undefined, undefined, undefined],
    ]);

    upstream.reset();
    // node:http, which sends Connection as given (fetch may not set it).
    const answer = await rawHttp(gateway.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...AUTH,
        connection: 'keep-alive, x-tenant-id',
        'x-tenant-id': 't-7',
        'accept-language': 'x'.repeat(1025),
      },
      body: JSON.stringify({ query: '{ apiKeys(first: 1) { nodes { id } } }' }),
    });
    expect(JSON.parse(answer.body.toString())).toEqual({ data: { apiKeys: { nodes: [{ id: 'k1' }] } } });
    expect([upstream.requests[0]!.headers['x-vms-tenant'], upstream.requests[0]!.headers['accept-language']]).toEqual([
      undefined,
      undefined,
    ]);
    expect(await metricLines(gateway, 'gateway_forwarded_headers_dropped_total')).toEqual([
      'gateway_forwarded_headers_dropped_total{header="accept-language"} 1',
    ]);
  });

  test('merges each returned header across the calls by its meaning, into one line, in the order the calls were made', async ({
    start,
  }) => {
    const inAnHour = new Date(Date.now() + 3_600_000).toUTCString();
    const pages: Array<Record<string, string>> = [
      {
        'ratelimit-remaining': '10',
        'ratelimit-limit': '100',
        'ratelimit-reset': '30',
        'x-ratelimit-remaining': '8',
        'retry-after': '5',
        'cache-control': 'public, max-age=300',
        deprecation: '@1893456000',
        sunset: 'Sat, 01 Jan 2033 00:00:00 GMT',
        link: '<https://docs.example/v2>; rel="deprecation"',
        'x-api-version': '2.1',
      },
      {
        'ratelimit-remaining': '3',
        'ratelimit-limit': '50',
        'ratelimit-reset': '10',
        'x-ratelimit-remaining': '9',
        'retry-after': inAnHour,
        'cache-control': 'max-age=60, private',
        deprecation: '@1861920000',
        sunset: 'Fri, 01 Jan 2038 00:00:00 GMT',
        link: '<https://docs.example/v2>; rel="deprecation", <https://docs.example/v3>; rel="successor-version"',
        'x-api-version': '2.2',
      },
      { 'ratelimit-remaining': '7', 'cache-control': 'max-age=120', 'x-api-version': '2.3' },
    ];
    const { gateway } = await gatewayWith(
      start,
      pagesWith((index) => pages[index]!),
    );
    const answer = await gateway.graphql(threePages, { headers: AUTH });
    const retryAfter = Number(answer.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(3590);
    expect(returned(answer.headers)).toEqual({
      'ratelimit-remaining': '3',
      'ratelimit-limit': '50',
      'ratelimit-reset': '30',
      'x-ratelimit-remaining': '8',
      'retry-after': String(retryAfter),
      'cache-control': 'private, max-age=60',
      deprecation: '@1861920000',
      sunset: 'Sat, 01 Jan 2033 00:00:00 GMT',
      link: '<https://docs.example/v2>; rel="deprecation", <https://docs.example/v3>; rel="successor-version"',
      'x-api-version': '2.1',
    });
  });

  test('passes on no value it cannot read, and no wait or lifetime past a day', async ({ start }) => {
    const pages: Array<Record<string, string>> = [
      {
        // A byte at or above 0x80 (obs-text), which would come out re-encoded.
        'x-api-version': 'caf\u00e9',
        'ratelimit-limit': 'NaN',
        'ratelimit-remaining': '5',
        'retry-after': 'Z 1',
        'ratelimit-reset': '1e3',
        'cache-control': 'max-age=9999999999',
      },
      {
        'ratelimit-limit': '1e309',
        'ratelimit-remaining': '4',
        'retry-after': 'Fri, 31 Dec 9999 23:59:59 GMT',
        'cache-control': 'max-age=9999999999',
      },
      { 'x-api-version': '2.0', 'cache-control': 'max-age=9999999999' },
    ];
    const { gateway } = await gatewayWith(
      start,
      pagesWith((index) => pages[index]!),
    );
    const answer = await gateway.graphql(threePages, { headers: AUTH });
    expect(returned(answer.headers)).toEqual({
      'ratelimit-remaining': '4',
      'retry-after': '86400',
      'cache-control': 'private, max-age=86400',
      'x-api-version': '2.0',
    });
  });

  test('gives a read cache hit the max-age its answer has left, not the one it was stored with', async ({ start }) => {
    const { gateway } = await gatewayWith(
      start,
      pagesWith(() => ({ 'cache-control': 'max-age=60' })),
      { cacheTtlMs: 60_000 },
    );
    const query = '{ apiKeys(first: 1) { nodes { id } } }';
    const beforeStored = Date.now();
    await gateway.graphql(query, { headers: AUTH });
    const afterStored = Date.now();
    await new Promise((resolve) => setTimeout(resolve, 2_100));
    const beforeHit = Date.now();
    const hit = await gateway.graphql(query, { headers: AUTH });
    const afterHit = Date.now();
    const maxAge = Number(/^private, max-age=(\d+)$/.exec(hit.headers.get('cache-control') ?? '')?.[1]);
    // Its age in whole seconds lies between the least and the most time that can have passed since it was stored.
    expect(maxAge).toBeGreaterThanOrEqual(60 - Math.floor((afterHit - beforeStored) / 1000));
    expect(maxAge).toBeLessThanOrEqual(60 - Math.floor((beforeHit - afterStored) / 1000));
    expect(maxAge).toBeLessThan(60);
  });

  test('takes "first" in the order the calls were made, never in the order they finished', async ({ start }) => {
    // Three root fields: the first call is the slowest to answer.
    const { gateway } = await gatewayWith(start, (request, index) => ({
      ...apiKeyList(3)(request),
      headers: { 'x-api-version': `call ${index + 1}` },
      delayMs: index === 0 ? 150 : 0,
    }));
    const answer = await gateway.graphql(
      '{ a: apiKeys(first: 1) { nodes { id } } b: apiKeys(first: 2) { nodes { id } } c: apiKeys(first: 3) { nodes { id } } }',
      {
        headers: AUTH,
      },
    );
    expect(answer.headers.get('x-api-version')).toBe('call 1');
  });

  test('makes an answer with an error, and every mutation, no-store whatever the REST API said', async ({ start }) => {
    const { upstream, gateway } = await gatewayWith(start, (request) =>
      request.method === 'POST'
        ? { body: envelope(folderRecord()), headers: { 'cache-control': 'max-age=600' } }
        : {
            status: 404,
            body: { success: false, result: null, errors: [{ message: 'none' }], links: {} },
            headers: { 'cache-control': 'max-age=600' },
          },
    );
    const failed = await gateway.graphql('{ apiKeys(first: 1) { nodes { id } } }', { headers: AUTH });
    const created = await gateway.graphql('mutation { createFolder(input: { name: "F" }) { folder { id } } }', { headers: AUTH });
    expect([failed.headers.get('cache-control'), created.headers.get('cache-control')]).toEqual(['private, no-store', 'private, no-store']);
    expect(upstream.requests).toHaveLength(2);
  });

  test('answers whatever header values the REST API and the client send: never a 5xx, never more than one line of a header', async ({
    start,
  }) => {
    let values: Record<string, string> = {};
    const { gateway } = await gatewayWith(start, (request) => ({ ...apiKeyList(60)(request), headers: values }));
    // What HTTP lets through as a field value: visible ASCII, spaces and tabs, up to 2 KB.
    const fieldValue = fc.stringMatching(/^[\x21-\x7e][\x20-\x7e\t]{0,2000}$/);
    await fc.assert(
      fc.asyncProperty(fc.dictionary(fc.constantFrom(...RETURNED), fieldValue), fieldValue, async (answered, sent) => {
        values = answered;
        const answer = await rawHttp(gateway.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...AUTH, 'accept-language': sent, 'x-tenant-id': sent },
          body: JSON.stringify({ query: '{ apiKeys(first: 60) { nodes { id } } }' }),
        });
        expect(answer.status).toBe(200);
        for (const name of RETURNED) expect(answer.lines.filter(([line]) => line === name).length).toBeLessThanOrEqual(1);
      }),
      { numRuns: 60 },
    );
  });

  test('merges across the operations of a batch', async ({ start }) => {
    const { gateway } = await gatewayWith(
      start,
      pagesWith((index) => ({ 'ratelimit-remaining': String(20 - index * 7) })),
    );
    const response = await fetch(gateway.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...AUTH },
      body: JSON.stringify([{ query: '{ apiKeys(first: 1) { nodes { id } } }' }, { query: '{ apiKeys(first: 2) { nodes { id } } }' }]),
    });
    expect(response.headers.get('ratelimit-remaining')).toBe('13');
  });

  test('gives back on a read cache hit the answer’s caching, deprecation, sunset and links, never an old rate limit', async ({ start }) => {
    const { upstream, gateway } = await gatewayWith(
      start,
      pagesWith(() => ({
        'ratelimit-remaining': '4',
        'cache-control': 'max-age=60',
        deprecation: '@1861920000',
        link: '<https://docs.example/v3>; rel="successor-version"',
      })),
      { cacheTtlMs: 60_000 },
    );
    const query = '{ apiKeys(first: 1) { nodes { id } } }';
    const first = await gateway.graphql(query, { headers: AUTH });
    const hit = await gateway.graphql(query, { headers: AUTH });
    expect(upstream.requests).toHaveLength(1);
    expect(returned(first.headers)).toMatchObject({ 'ratelimit-remaining': '4' });
    expect(returned(hit.headers)).toEqual({
      'cache-control': 'private, max-age=60',
      deprecation: '@1861920000',
      link: '<https://docs.example/v3>; rel="successor-version"',
    });
  });

  test('gives a coalesced read’s headers to each request that shared it', async ({ start }) => {
    const { upstream, gateway } = await gatewayWith(
      start,
      pagesWith(
        () => ({ 'ratelimit-remaining': '42' }),
        () => 100,
      ),
    );
    const query = '{ apiKeys(first: 1) { nodes { id } } }';
    const answers = await Promise.all([gateway.graphql(query, { headers: AUTH }), gateway.graphql(query, { headers: AUTH })]);
    expect(upstream.requests).toHaveLength(1);
    expect(answers.map((answer) => answer.headers.get('ratelimit-remaining'))).toEqual(['42', '42']);
  });

  test('under @stream, sends the headers of the calls before the first part with it, and the later ones in the last part', async ({
    start,
  }) => {
    const { gateway } = await gatewayWith(
      start,
      pagesWith((index) => ({ 'ratelimit-remaining': String(30 - index), 'x-api-version': `page ${index + 1}` })),
    );
    const response = await fetch(gateway.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'multipart/mixed', ...AUTH },
      body: JSON.stringify({ query: '{ apiKeys(first: 75) { edges @stream(initialCount: 25) { node { id } } } }' }),
    });
    expect(returned(response.headers)).toEqual({
      'ratelimit-remaining': '30',
      'x-api-version': 'page 1',
      'cache-control': 'private, no-store',
    });
    const parts: ReceivedPart[] = [];
    for await (const part of partsOf(response)) parts.push(part);
    expect(parts.at(-1)).toMatchObject({
      hasNext: false,
      extensions: { upstreamHeaders: { 'ratelimit-remaining': '28', 'x-api-version': 'page 2' } },
    });
    expect(parts.slice(0, -1).some((part) => 'extensions' in part)).toBe(false);
  });

  test('gives each of 200 concurrent requests of two callers only its own caller’s values', async ({ start }) => {
    const { gateway } = await gatewayWith(start, (request) => ({
      ...apiKeyList(1)(request),
      headers: { 'ratelimit-remaining': request.headers.authorization === 'Bearer alice' ? '111' : '222' },
      delayMs: Math.floor(Math.random() * 20),
    }));
    const answers = await Promise.all(
      Array.from({ length: 200 }, async (_, i) => {
        const caller = i % 2 ? 'alice' : 'bob';
        const answer = await gateway.graphql(`{ apiKeys(first: 1) { nodes { id } } n${i}: __typename }`, { headers: bearer(caller) });
        return [caller, answer.headers.get('ratelimit-remaining')];
      }),
    );
    expect(answers.filter(([caller, value]) => value !== (caller === 'alice' ? '111' : '222'))).toEqual([]);
  });

  test('exposes the returned headers to an allowed origin through CORS', async ({ start }) => {
    const { gateway } = await gatewayWith(
      start,
      pagesWith(() => ({ 'ratelimit-remaining': '5' })),
    );
    const answer = await gateway.graphql('{ apiKeys(first: 1) { nodes { id } } }', { headers: { ...AUTH, origin: 'https://app.example' } });
    expect(answer.headers.get('access-control-expose-headers')?.split(', ')).toEqual([
      'x-request-id',
      'Retry-After',
      'Server-Timing',
      'Idempotent-Replayed',
      // The gateway's own deprecation notices, which RETURN_HEADERS also names here: each once.
      'deprecation',
      'sunset',
      'link',
      'ratelimit-remaining',
      'ratelimit-limit',
      'ratelimit-reset',
      'x-ratelimit-remaining',
      'cache-control',
      'x-api-version',
    ]);
  });
});
