import type { ServerResponse } from 'node:http';
import { describe, expect } from 'vitest';
import { AUTH } from '../support/auth.js';
import { gatewayOverUpstream } from '../support/fixtures.js';
import type { TestGateway } from '../support/gateway.js';
import { allParts, edgesIn, merged, pagesHeldForTheClient, partsOf, type ReceivedPart } from '../support/incremental.js';
import { captureLogs } from '../support/logs.js';
import { apiKeyList } from '../support/records.js';

/**
 * `@defer` and `@stream` through the whole gateway over real HTTP, on `apiKeys`: its edges go out
 * page by page as the upstream's pages arrive, merge into exactly the unstreamed answer, and stop
 * when the client goes away.
 */
const ORIGIN = 'http://app.example.test';
const logs = captureLogs('info');
const it = gatewayOverUpstream(apiKeyList(100), { corsOrigins: [ORIGIN], logger: logs.logger, upstreamRetries: 0 });

const RECORD = 'id name type permissions createdBy createdTime updatedBy updatedTime';
const PAGE_INFO = 'pageInfo { hasNextPage hasPreviousPage startCursor endCursor }';
const PLAIN = `{ apiKeys(first: 100) { edges { cursor node { ${RECORD} } } nodes { id } ${PAGE_INFO} } }`;
const STREAMED = `{ apiKeys(first: 100) { edges @stream(initialCount: 25) { cursor node { ${RECORD} } } nodes @stream { id } ... @defer { ${PAGE_INFO} } } }`;

const CURSORS = '{ apiKeys(first: 100) { edges { cursor } } }';
const CURSORS_STREAMED = '{ apiKeys(first: 100) { edges @stream(initialCount: 25) { cursor } } }';

/** A POST that asks for an answer in parts (as Apollo Client asks). */
function streamed(gateway: TestGateway, query: string, headers: Record<string, string> = {}, signal?: AbortSignal) {
  return fetch(gateway.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'multipart/mixed;deferSpec=20220824, application/json', ...AUTH, ...headers },
    body: JSON.stringify({ query }),
    ...(signal ? { signal } : {}),
  });
}

const sentUpstream = (requests: Array<{ method: string; path: string; query: Record<string, string> }>) =>
  requests.map((r) => `${r.method} ${r.path} ${JSON.stringify(r.query)}`);

describe('@defer and @stream refused while validating', () => {
  it('reports the bounds of initialCount before Yoga’s own rules for the directives, as the errors of one document', async ({
    gateway,
    upstream,
  }) => {
    const answer = await gateway.graphql('{ apiKeys(first: 1) @stream(initialCount: -1) { nodes { id } } }', { headers: AUTH });
    expect([answer.status, answer.body.errors?.map(({ message }) => message)]).toEqual([
      400,
      [
        'The initialCount of @stream must be 0 to 100, the longest list a field answers.',
        'Stream directive cannot be used on non-list field "apiKeys" on type "Query".',
      ],
    ]);
    expect(upstream.requests).toEqual([]);
  });
});

describe('apiKeys under @stream', () => {
  it('merges into exactly the unstreamed answer, from exactly the same upstream calls', async ({ gateway, upstream }) => {
    const plain = await gateway.graphql(PLAIN, { headers: AUTH });
    const plainCalls = sentUpstream(upstream.requests.splice(0));
    const response = await streamed(gateway, STREAMED);
    expect(response.headers.get('content-type')).toBe('multipart/mixed; boundary="-"');
    const parts = await allParts(response);
    expect(parts.length).toBeGreaterThan(2);
    expect(merged(parts)).toEqual(plain.body);
    expect(sentUpstream(upstream.requests)).toEqual(plainCalls);
    expect(plainCalls).toEqual([
      'GET /v2/api_keys {"limit":"25"}',
      'GET /v2/api_keys {"limit":"25","cursor":"25"}',
      'GET /v2/api_keys {"limit":"25","cursor":"50"}',
      'GET /v2/api_keys {"limit":"25","cursor":"75"}',
    ]);
  });

  it('resumes after a cursor in the middle of a page as the unstreamed query does', async ({ gateway, upstream }) => {
    const first = await gateway.graphql('{ apiKeys(first: 30) { pageInfo { endCursor } } }', { headers: AUTH });
    const after = (first.body.data as { apiKeys: { pageInfo: { endCursor: string } } }).apiKeys.pageInfo.endCursor;
    upstream.requests.length = 0;
    const plain = await gateway.graphql(PLAIN.replace('first: 100', `first: 60, after: "${after}"`), { headers: AUTH });
    const plainCalls = sentUpstream(upstream.requests.splice(0));
    const parts = await allParts(await streamed(gateway, STREAMED.replace('first: 100', `first: 60, after: "${after}"`)));
    expect(merged(parts)).toEqual(plain.body);
    expect(sentUpstream(upstream.requests)).toEqual(plainCalls);
  });

  it('sends the edges of each upstream page before the next page has been answered, gzip accepted or not', async ({
    gateway,
    upstream,
  }) => {
    for (const encoding of ['gzip', 'identity']) {
      upstream.reset();
      const held = pagesHeldForTheClient(100);
      upstream.answer(held.script);
      const response = await streamed(gateway, STREAMED, { 'accept-encoding': encoding });
      expect(response.headers.get('content-encoding')).toBeNull();
      const parts: ReceivedPart[] = [];
      for await (const part of partsOf(response)) {
        parts.push(part);
        await held.arrived(parts);
      }
      // Ended at all: each page was answered only once the client had the edges before it.
      expect(edgesIn(parts)).toBe(100);
    }
  });

  it('ends the stream cleanly when a later page fails: the edges sent are kept, the error is at the next edge', async ({
    gateway,
    upstream,
  }) => {
    const plain = (await gateway.graphql(PLAIN, { headers: AUTH })).body.data as { apiKeys: { edges: unknown[]; nodes: unknown[] } };
    upstream.reset();
    const list = apiKeyList(100);
    upstream.answer((request) =>
      request.query.cursor === '50'
        ? { status: 500, body: { success: false, result: null, errors: [{ message: 'database down' }], links: {} } }
        : list(request),
    );
    const parts = await allParts(await streamed(gateway, STREAMED));
    expect(parts.at(-1)!.hasNext).toBe(false);
    const failure = (path: Array<string | number>, column: number) => ({
      message: 'database down',
      locations: [{ line: 1, column }],
      path,
      extensions: { code: 'UPSTREAM_ERROR', upstream: { status: 500, error: { message: 'database down' } } },
    });
    expect(merged(parts)).toEqual({
      data: { apiKeys: { edges: plain.apiKeys.edges.slice(0, 50), nodes: plain.apiKeys.nodes.slice(0, 50) } },
      errors: [failure(['apiKeys', 'edges', 50], 25), failure(['apiKeys', 'nodes', 50], 146), failure(['apiKeys', 'pageInfo'], 180)],
    });
    expect(upstream.requests).toHaveLength(3);
    // One line for the whole stream, written once it has ended, with the codes of its later parts.
    expect(logs.lines('graphql request').at(-1)).toMatchObject({
      status: 200,
      upstreamCalls: 3,
      outcome: 'partial',
      errorCodes: ['UPSTREAM_ERROR'],
      incremental: { parts: parts.length, complete: true },
    });
  });

  it('counts every page of the stream in MAX_UPSTREAM_CALLS: one needing more pages than allowed is refused before any call', async ({
    start,
    upstream,
  }) => {
    const small = await start.gateway({ upstreamUrl: new URL(upstream.url), maxUpstreamCalls: 3 });
    const refused = await streamed(small, CURSORS_STREAMED);
    expect([refused.status, await refused.json()]).toEqual([
      400,
      {
        errors: [
          {
            message:
              'This operation would need 4 upstream requests, more than the 3 upstream requests allowed (MAX_UPSTREAM_CALLS). Ask for fewer records or fewer aliased fields per request.',
            extensions: { code: 'LIMIT_EXCEEDED', limit: 'upstreamCalls', max: 3 },
          },
        ],
      },
    ]);
    expect(upstream.requests).toEqual([]);
  });

  it('holds the whole stream to REQUEST_DEADLINE_MS: a page still out when it passes is UPSTREAM_TIMEOUT at the next edge', async ({
    gateway,
    start,
    upstream,
  }) => {
    const plain = (await gateway.graphql(CURSORS, { headers: AUTH })).body.data as {
      apiKeys: { edges: unknown[] };
    };
    upstream.reset();
    const deadlined = await start.gateway({ upstreamUrl: new URL(upstream.url), requestDeadlineMs: 500, upstreamRetries: 0 });
    const list = apiKeyList(100);
    // The first page at once; the second far later than the deadline, well inside the call's own timeout.
    upstream.answer((request, index) => (index === 0 ? list(request) : { ...list(request), delayMs: 5_000 }));
    const parts = await allParts(await streamed(deadlined, CURSORS_STREAMED));
    expect(parts.at(-1)!.hasNext).toBe(false);
    expect(merged(parts)).toEqual({
      data: { apiKeys: { edges: plain.apiKeys.edges.slice(0, 25) } },
      errors: [
        {
          message: 'The operation used up its deadline of 500 ms before the upstream service answered.',
          locations: [{ line: 1, column: 25 }],
          path: ['apiKeys', 'edges', 25],
          extensions: { code: 'UPSTREAM_TIMEOUT' },
        },
      ],
    });
    expect(upstream.requests).toHaveLength(2);
  });

  it('stops the upstream walk when the client goes away: the page in flight is cancelled and no page after it is asked for', async ({
    gateway,
    upstream,
  }) => {
    const list = apiKeyList(100);
    let cancelled!: () => void;
    const pageTwoCancelled = new Promise<void>((resolve) => (cancelled = resolve));
    upstream.answer((request, index) => (index === 0 ? list(request) : (res: ServerResponse) => res.on('close', cancelled)));
    const client = new AbortController();
    const parts = partsOf(await streamed(gateway, STREAMED, {}, client.signal));
    expect(edgesIn([(await parts.next()).value!])).toBe(25);
    await expect.poll(() => upstream.requests.length).toBe(2);
    client.abort();
    await pageTwoCancelled;
    // The request's line is written when the client has gone, counting the page that was in flight.
    await expect.poll(() => logs.lines('graphql request').at(-1)?.incremental).toMatchObject({ complete: false });
    // Its client left before the last part: an outcome of its own, never an error.
    expect(logs.lines('graphql request').at(-1)).toMatchObject({ status: 200, upstreamCalls: 2, outcome: 'client_closed', errorCodes: [] });
    expect(upstream.requests).toHaveLength(2);
  });

  it('carries the headers of every answer (CORS, x-request-id, nosniff, private and no-store) and no buffering, as multipart/mixed and as an event stream', async ({
    gateway,
  }) => {
    for (const accept of ['multipart/mixed', 'text/event-stream']) {
      const response = await streamed(gateway, STREAMED, { accept, origin: ORIGIN, 'x-request-id': 'stream-1' });
      await response.arrayBuffer();
      expect([accept, Object.fromEntries([...response.headers].filter(([name]) => !['date', 'connection'].includes(name)))]).toEqual([
        accept,
        {
          'access-control-allow-methods': 'GET, POST',
          'access-control-allow-origin': ORIGIN,
          'access-control-expose-headers': 'x-request-id, Retry-After, Server-Timing, Idempotent-Replayed, deprecation, sunset, link',
          'access-control-max-age': '600',
          'cache-control': 'private, no-store',
          'content-type': accept === 'multipart/mixed' ? 'multipart/mixed; boundary="-"' : 'text/event-stream',
          ...(accept === 'text/event-stream' ? { 'content-encoding': 'none' } : {}),
          'transfer-encoding': 'chunked',
          vary: 'Origin',
          'x-accel-buffering': 'no',
          'x-content-type-options': 'nosniff',
          'x-request-id': 'stream-1',
        },
      ]);
    }
  });

  it('answers a client that takes only JSON with the whole answer at once, from the same upstream calls', async ({ gateway, upstream }) => {
    const plain = await gateway.graphql(PLAIN, { headers: AUTH });
    const plainCalls = sentUpstream(upstream.requests.splice(0));
    expect(await gateway.graphql(STREAMED, { headers: AUTH })).toMatchObject({ status: 200, body: plain.body });
    expect(sentUpstream(upstream.requests)).toEqual(plainCalls);
  });

  it('refuses an initialCount above the longest list, 100, before any upstream call', async ({ gateway, upstream }) => {
    const answer = await gateway.graphql('{ apiKeys(first: 100) { edges @stream(initialCount: 101) { cursor } } }', { headers: AUTH });
    expect([answer.status, answer.body]).toEqual([
      400,
      {
        errors: [
          {
            message: 'The initialCount of @stream must be 0 to 100, the longest list a field answers.',
            extensions: { code: 'LIMIT_EXCEEDED', limit: 'initialCount', max: 100 },
          },
        ],
      },
    ]);
    expect(upstream.requests).toEqual([]);
  });
});
