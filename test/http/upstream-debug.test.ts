import { describe, expect } from 'vitest';
import { AUTH } from '../support/auth.js';
import { type Start, test } from '../support/fixtures.js';
import { partsOf, type ReceivedPart } from '../support/incremental.js';
import { rawHttp } from '../support/raw-http.js';
import type { Script } from '../support/recording-upstream.js';
import { envelope } from '../support/recording-upstream.js';
import { apiKeyList, categoryRecord } from '../support/records.js';

/**
 * What a request sees of its upstream calls with X-Debug-Upstream, over real HTTP: the calls behind
 * its answer, streamed part by part, a dry run of a mutation, and nothing at all in production
 * without the key.
 */
const KEY = 'a-debugging-key-of-ours';
const THREE_PAGES = '{ apiKeys(first: 60) { nodes { id } } }';
const RENAME = 'mutation { updateCategory(input: { id: "cat_1", name: "N" }) { category { id } } }';

async function gatewayWith(start: Start, script: Script, options: { production?: boolean; cacheTtlMs?: number } = {}) {
  const upstream = await start.upstream(script);
  const gateway = await start.gateway({
    upstreamUrl: new URL(upstream.url),
    debugUpstreamKey: KEY,
    production: options.production ?? false,
    cacheTtlMs: options.cacheTtlMs ?? 0,
  });
  return { upstream, gateway };
}

const debug = (value = '1') => ({ ...AUTH, 'x-debug-upstream': value });

/** What a shown call says, its timings and the request it made left to `expect.any`. */
const call = (fields: Record<string, unknown>) => ({
  method: 'GET',
  route: '/api_keys',
  status: 200,
  durationMs: expect.any(Number),
  startMs: expect.any(Number),
  attempt: 1,
  retryReasons: [],
  cache: 'miss',
  paths: ['apiKeys'],
  errors: [],
  ...fields,
});

describe('X-Debug-Upstream', () => {
  test('shows the calls behind an answer: route, url, status, timing, attempts, the fields each served, its errors', async ({ start }) => {
    const { gateway } = await gatewayWith(start, apiKeyList(60));
    const answer = await gateway.graphql(`{ apiKeys(first: 60) { nodes { id } } again: apiKeys(first: 60) { nodes { id } } }`, {
      headers: debug(),
    });
    expect(answer.body.extensions).toEqual({
      upstream: {
        calls: [
          call({ url: '/api_keys?limit=25', paths: ['apiKeys', 'again'] }),
          call({ url: '/api_keys?limit=25&cursor=25', paths: ['apiKeys', 'again'] }),
          call({ url: '/api_keys?limit=10&cursor=50', paths: ['apiKeys', 'again'] }),
        ],
      },
      // Identical reads count once: the two fields share the three pages.
      cost: { estimatedCalls: 3, actualCalls: 3 },
    });
    const [timing] = [answer.headers.get('server-timing')];
    const total = (answer.body.extensions!.upstream.calls as Array<{ durationMs: number }>).reduce(
      (sum, { durationMs }) => sum + durationMs,
      0,
    );
    expect(timing).toBe(`upstream;dur=${Math.round(total * 10) / 10};desc="3 calls"`);
  });

  test('shows a retry with why it was made, a write’s body, and the code a failure turned into', async ({ start }) => {
    const { gateway } = await gatewayWith(start, (request, index) =>
      index === 0
        ? { status: 503, body: '' }
        : index === 1
          ? apiKeyList(1)(request)
          : { status: 404, body: { success: false, result: null, errors: [{ message: 'No such category' }], links: {} } },
    );
    const read = await gateway.graphql('{ apiKeys(first: 1) { nodes { id } } }', { headers: debug() });
    expect(read.body.extensions!.upstream).toEqual({
      calls: [call({ url: '/api_keys?limit=1', attempt: 2, retryReasons: ['503'] })],
    });
    const write = await gateway.graphql(RENAME, { headers: debug() });
    expect(write.body.extensions!.upstream).toEqual({
      calls: [
        call({
          method: 'PATCH',
          route: '/categories/:id',
          url: '/categories/cat_1',
          // A write shows the body it sent, so that its curl command can send it again.
          bodyBytes: 12,
          body: { name: 'N' },
          status: 404,
          paths: ['updateCategory'],
          errors: ['NOT_FOUND'],
        }),
      ],
    });
  });

  test('shows a read shared with an identical one in flight as coalesced, and an answer from the read cache, which it never keeps', async ({
    start,
  }) => {
    const list = apiKeyList(1);
    const { upstream, gateway } = await gatewayWith(start, (request) => ({ ...list(request), delayMs: 100 }), { cacheTtlMs: 60_000 });
    const query = '{ apiKeys(first: 1) { nodes { id } } }';
    const [first, second] = await Promise.all([gateway.graphql(query, { headers: debug() }), gateway.graphql(query, { headers: debug() })]);
    expect(upstream.requests).toHaveLength(1);
    const caches = [first, second].map((answer) => answer.body.extensions!.upstream.calls[0].cache as string);
    expect(caches.toSorted()).toEqual(['coalesced', 'miss']);
    // Neither debug answer was kept: this one goes upstream, and is kept.
    await gateway.graphql(query, { headers: AUTH });
    expect(upstream.requests).toHaveLength(2);
    const hit = await gateway.graphql(query, { headers: debug() });
    expect([hit.body, hit.headers.get('server-timing')]).toEqual([
      {
        data: { apiKeys: { nodes: [{ id: 'k1' }] } },
        extensions: { upstream: { cache: 'hit', calls: [] }, cost: { estimatedCalls: 0, actualCalls: 0 } },
      },
      'upstream;dur=0;desc="0 calls", cache;desc=hit',
    ]);
  });

  test('under @stream, lists in each part the calls that finished since the part before it, each call once', async ({ start }) => {
    const { gateway } = await gatewayWith(start, apiKeyList(60));
    const response = await fetch(gateway.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'multipart/mixed', ...debug() },
      body: JSON.stringify({ query: '{ apiKeys(first: 60) { edges @stream(initialCount: 25) { node { id } } } }' }),
    });
    const parts: ReceivedPart[] = [];
    for await (const part of partsOf(response)) parts.push(part);
    const shown = parts.map((part) =>
      ((part as { extensions?: { upstream: { calls: Array<{ url: string }> } } }).extensions?.upstream.calls ?? []).map((c) => c.url),
    );
    expect(shown[0]).toEqual(['/api_keys?limit=25']);
    expect(shown.flat()).toEqual(['/api_keys?limit=25', '/api_keys?limit=25&cursor=25', '/api_keys?limit=10&cursor=50']);
  });

  test('a dry run of a mutation builds its REST request and sends nothing: the field is null with DRY_RUN', async ({ start }) => {
    const { upstream, gateway } = await gatewayWith(start, () => ({ body: envelope(categoryRecord()) }));
    const answer = await gateway.graphql(RENAME, { headers: debug('dry-run') });
    expect(answer.body).toEqual({
      data: { updateCategory: null },
      errors: [
        {
          message: 'Dry run: the upstream request was built, not sent; extensions.upstream.dryRuns holds it.',
          locations: [{ line: 1, column: 12 }],
          path: ['updateCategory'],
          extensions: { code: 'DRY_RUN' },
        },
      ],
      extensions: {
        upstream: { calls: [], dryRuns: [{ method: 'PATCH', path: '/categories/cat_1', body: { name: 'N' } }] },
        cost: { estimatedCalls: 1, actualCalls: 0 },
      },
    });
    expect(upstream.requests).toEqual([]);
  });

  test('a dry run of several writes shows every one of them, in order', async ({ start }) => {
    const { upstream, gateway } = await gatewayWith(start, () => ({ body: envelope(categoryRecord()) }));
    const both = `mutation {
      a: updateCategory(input: { id: "cat_1", name: "One" }) { category { id } }
      b: updateCategory(input: { id: "cat_2", name: "Two" }) { category { id } }
    }`;
    const answer = await gateway.graphql(both, { headers: debug('dry-run') });
    expect([answer.body.data, answer.body.extensions, upstream.requests]).toEqual([
      { a: null, b: null },
      {
        upstream: {
          calls: [],
          dryRuns: [
            { method: 'PATCH', path: '/categories/cat_1', body: { name: 'One' } },
            { method: 'PATCH', path: '/categories/cat_2', body: { name: 'Two' } },
          ],
        },
        cost: { estimatedCalls: 2, actualCalls: 0 },
      },
      [],
    ]);
  });

  test.for([false, true])(
    'takes any value that names dry-run, in any case, anywhere, as a dry run (production: %s)',
    async (production, { start }) => {
      const { upstream, gateway } = await gatewayWith(start, () => ({ body: envelope(categoryRecord()) }), { production });
      const values = [
        'dry-run; key=',
        'dry-run;',
        'Dry-Run',
        'DRY-RUN',
        'dry-run,',
        'dry-run; key=abc; x',
        'dry-run, 1',
        '1, dry-run',
        ` dry-run ; key=${KEY}x`,
      ];
      for (const value of values) {
        const answer = await gateway.graphql(RENAME, { headers: debug(value) });
        expect([
          value,
          answer.body.data,
          answer.body.errors?.map((error) => (error.extensions as { code?: string } | undefined)?.code),
        ]).toEqual([value, { updateCategory: null }, ['DRY_RUN']]);
      }
      // The header sent twice reaches the gateway as two lines.
      const twice = await rawHttp(gateway.url, {
        method: 'POST',
        headers: { ...AUTH, 'content-type': 'application/json', 'x-debug-upstream': ['1', 'dry-run'] as unknown as string },
        body: JSON.stringify({ query: RENAME }),
      });
      expect(JSON.parse(twice.body.toString()).data).toEqual({ updateCategory: null });
      expect(upstream.requests).toEqual([]);
    },
  );

  test('a dry run shows its writes only when the value is exactly one, with the key in production, and never says where they are otherwise', async ({
    start,
  }) => {
    const { gateway } = await gatewayWith(start, () => ({ body: envelope(categoryRecord()) }), { production: true });
    for (const value of ['dry-run; key=', 'dry-run;', 'DRY-RUN', `dry-run, 1; key=${KEY}`, `dry-run; key=${KEY}; x`]) {
      const answer = await gateway.graphql(RENAME, { headers: debug(value) });
      expect([value, answer.body.extensions, answer.body.errors?.[0]?.message]).toEqual([
        value,
        undefined,
        'Dry run: the upstream request was built, not sent.',
      ]);
    }
    const shown = await gateway.graphql(RENAME, { headers: debug(`Dry-Run; key=${KEY}`) });
    expect(shown.body.extensions?.upstream.dryRuns).toEqual([{ method: 'PATCH', path: '/categories/cat_1', body: { name: 'N' } }]);
  });

  test('in production shows nothing and hints nothing without DEBUG_UPSTREAM_KEY, and shows all with it', async ({ start }) => {
    const { upstream, gateway } = await gatewayWith(start, apiKeyList(60), { production: true });
    const plain = await gateway.graphql(THREE_PAGES, { headers: AUTH });
    for (const value of ['1', '1; key=not-the-key-at-all', `1; key=${KEY}x`]) {
      const answer = await gateway.graphql(THREE_PAGES, { headers: debug(value) });
      expect([answer.body, answer.headers.get('server-timing')]).toEqual([plain.body, null]);
    }
    const shown = await gateway.graphql(THREE_PAGES, { headers: debug(`1; key=${KEY}`) });
    expect(shown.body.extensions!.upstream.calls).toHaveLength(3);
    // A dry run without the key is one all the same, showing nothing: the write is not sent.
    upstream.reset();
    const dry = await gateway.graphql(RENAME, { headers: debug('dry-run') });
    expect([dry.body.data, dry.body.extensions, upstream.requests]).toEqual([{ updateCategory: null }, undefined, []]);
  });

  test('never shows the caller’s token, nor any part of it, in a debug answer’s body or headers', async ({ start }) => {
    const token = 'Bearer sEcReT-tOkEn-0123456789';
    const { gateway } = await gatewayWith(start, (request, index) =>
      index === 0
        ? { status: 401, body: { success: false, result: null, errors: [{ message: `bad token ${token}` }], links: {} } }
        : apiKeyList(60)(request),
    );
    const answers = [
      await gateway.graphql(THREE_PAGES, { headers: { authorization: token, 'x-debug-upstream': '1' } }),
      await gateway.graphql(THREE_PAGES, { headers: { authorization: token, 'x-debug-upstream': '1' } }),
      await gateway.graphql(RENAME, { headers: { authorization: token, 'x-debug-upstream': 'dry-run' } }),
    ];
    const everything = JSON.stringify(answers.map((answer) => [answer.body, [...answer.headers]]));
    expect(everything).toContain('upstream');
    for (const part of ['sEcReT', 'tOkEn', '0123456789']) expect(everything).not.toContain(part);
  });
});
