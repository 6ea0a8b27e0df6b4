import type { ServerResponse } from 'node:http';
import { describe, expect } from 'vitest';
import { AUTH } from '../support/auth.js';
import { gatewayOverUpstream, sharedUpstream } from '../support/fixtures.js';
import type { TestGateway } from '../support/gateway.js';
import { envelope, type RecordingUpstream } from '../support/recording-upstream.js';
import { apiKeyList, apiKeyPage, apiKeyRecord, apiKeys } from '../support/records.js';
import { codes, drip, expectNoLeak, expectStillServing, KEYS_QUERY } from './harness.js';

/**
 * Fault injection: a scripted upstream over real HTTP misbehaves in one way per test. For each fault
 * the caller gets the documented error code, nothing secret leaks, and the next request is served.
 */
const TIMEOUT_MS = 300;
const MAX_BYTES = 64 * 1024;

const UPDATE_CATEGORY = 'mutation { updateCategory(input: { id: "cat_1", name: "New" }) { category { id name } } }';

const it = gatewayOverUpstream(undefined, {
  upstreamTimeoutMs: TIMEOUT_MS,
  upstreamMaxBytes: MAX_BYTES,
  upstreamRetryMaxDelayMs: 200,
  // The breaker is proven on its own (breaker.test.ts); here it must not turn one fault into the next.
  breakerMinCalls: 10_000,
  requestDeadlineMs: 5_000,
})
  // A second host that links and redirects point to: it must never receive anything.
  .extend('elsewhere', { scope: 'file' }, sharedUpstream());

async function fault({ gateway, upstream }: { gateway: TestGateway; upstream: RecordingUpstream }, query: string, expectedCode: string) {
  const answer = await gateway.graphql(query, { headers: AUTH });
  expect(answer.status).toBe(200);
  expect(codes(answer)).toEqual([expectedCode]);
  expectNoLeak(answer, upstream);
  return answer;
}

const resetSocket = (res: ServerResponse) => res.socket?.destroy();

describe('latency', () => {
  it('an answer slower than UPSTREAM_TIMEOUT_MS is UPSTREAM_TIMEOUT, and a timed-out GET is not retried', async ({ gateway, upstream }) => {
    upstream.answer(() => ({ body: envelope(apiKeys(2)), delayMs: TIMEOUT_MS + 300 }));
    const answer = await fault({ gateway, upstream }, KEYS_QUERY, 'UPSTREAM_TIMEOUT');
    expect(answer.body).toEqual({
      data: { apiKeys: null },
      errors: [
        {
          message: `The upstream service did not answer within ${TIMEOUT_MS} ms.`,
          locations: [{ line: 1, column: 3 }],
          path: ['apiKeys'],
          extensions: { code: 'UPSTREAM_TIMEOUT' },
        },
      ],
    });
    expect(upstream.requests).toHaveLength(1);
    await expectStillServing(gateway, upstream);
  });

  it('a slow drip (slowloris) body, each byte within the idle timeout, is cut off at UPSTREAM_TIMEOUT_MS', async ({
    gateway,
    upstream,
  }) => {
    const body = JSON.stringify(envelope(apiKeys(2)));
    upstream.answer(() => (res) => drip(res, { 'content-type': 'application/json', 'content-length': body.length }, [...body], 20));
    await fault({ gateway, upstream }, KEYS_QUERY, 'UPSTREAM_TIMEOUT');
    expect(upstream.requests).toHaveLength(1);
    await expectStillServing(gateway, upstream);
  });
});

describe('5xx', () => {
  it('a GET answered 503 is retried twice, then the last answer is UPSTREAM_ERROR with its status', async ({ gateway, upstream }) => {
    upstream.answer(() => ({
      status: 503,
      body: { success: false, result: null, errors: [{ message: 'Down for maintenance' }], links: {} },
    }));
    const answer = await fault({ gateway, upstream }, KEYS_QUERY, 'UPSTREAM_ERROR');
    expect(answer.body.errors![0]).toMatchObject({
      message: 'Down for maintenance',
      extensions: { code: 'UPSTREAM_ERROR', upstream: { status: 503, error: { message: 'Down for maintenance' } } },
    });
    expect(upstream.requests.map((r) => [r.method, r.path, r.headers.authorization])).toEqual([
      ['GET', '/v2/api_keys', AUTH.authorization],
      ['GET', '/v2/api_keys', AUTH.authorization],
      ['GET', '/v2/api_keys', AUTH.authorization],
    ]);
    await expectStillServing(gateway, upstream);
  });

  it('a GET that fails with 502 once and then succeeds is answered with the data', async ({ gateway, upstream }) => {
    upstream.answer((_, index) => (index === 0 ? { status: 502, body: '' } : { body: envelope(apiKeys(2)) }));
    const answer = await gateway.graphql(KEYS_QUERY, { headers: AUTH });
    expect(answer.body).toEqual({
      data: {
        apiKeys: {
          nodes: [
            { id: 'k1', name: 'Key 1' },
            { id: 'k2', name: 'Key 2' },
          ],
        },
      },
    });
    expect(upstream.requests).toHaveLength(2);
  });

  it('500 is not retried: it is not a transient gateway-side failure', async ({ gateway, upstream }) => {
    upstream.answer(() => ({ status: 500, body: '' }));
    await fault({ gateway, upstream }, KEYS_QUERY, 'UPSTREAM_ERROR');
    expect(upstream.requests).toHaveLength(1);
  });

  it('a PATCH answered 503 is never retried', async ({ gateway, upstream }) => {
    upstream.answer(() => ({ status: 503, body: '' }));
    await fault({ gateway, upstream }, UPDATE_CATEGORY, 'UPSTREAM_ERROR');
    expect(upstream.requests.map((r) => r.method)).toEqual(['PATCH']);
  });

  it('Retry-After within the cap is honoured; one beyond the cap is not waited for', async ({ gateway, upstream }) => {
    upstream.answer((_, index) =>
      index === 0 ? { status: 503, headers: { 'retry-after': '0' }, body: '' } : { body: envelope(apiKeys(2)) },
    );
    expect((await gateway.graphql(KEYS_QUERY, { headers: AUTH })).body.errors).toBeUndefined();
    expect(upstream.requests).toHaveLength(2);

    upstream.answer(() => ({ status: 503, headers: { 'retry-after': '120' }, body: '' }));
    await fault({ gateway, upstream }, KEYS_QUERY, 'UPSTREAM_ERROR');
    expect(upstream.requests.slice(2)).toHaveLength(1);
  });

  it('an HTML error page is UPSTREAM_ERROR with a generic message, never the HTML', async ({ gateway, upstream }) => {
    upstream.answer(() => ({
      status: 500,
      headers: { 'content-type': 'text/html' },
      body: '<html><body><h1>500 Internal Server Error</h1><p>at Server.handle (/srv/app.js:1:2)</p></body></html>',
    }));
    const answer = await fault({ gateway, upstream }, KEYS_QUERY, 'UPSTREAM_ERROR');
    expect(answer.body.errors![0]!.message).toBe('The upstream service answered with HTTP status 500.');
    expect(answer.body.errors![0]!.extensions).toEqual({ code: 'UPSTREAM_ERROR', upstream: { status: 500 } });
    await expectStillServing(gateway, upstream);
  });

  it('an HTML page with status 200 is UPSTREAM_BAD_RESPONSE', async ({ gateway, upstream }) => {
    upstream.answer(() => ({ status: 200, headers: { 'content-type': 'text/html' }, body: '<html><body>Welcome to nginx!</body></html>' }));
    await fault({ gateway, upstream }, KEYS_QUERY, 'UPSTREAM_BAD_RESPONSE');
  });
});

describe('connection resets', () => {
  it('a reset before the answer is retried for a GET, then UPSTREAM_UNAVAILABLE', async ({ gateway, upstream }) => {
    upstream.answer(() => resetSocket);
    await fault({ gateway, upstream }, KEYS_QUERY, 'UPSTREAM_UNAVAILABLE');
    expect(upstream.requests).toHaveLength(3);
    await expectStillServing(gateway, upstream);
  });

  it('a GET reset once and then answered succeeds', async ({ gateway, upstream }) => {
    upstream.answer((_, index) => (index === 0 ? resetSocket : { body: envelope(apiKeys(2)) }));
    expect((await gateway.graphql(KEYS_QUERY, { headers: AUTH })).body.errors).toBeUndefined();
    expect(upstream.requests).toHaveLength(2);
  });

  it('a PATCH reset before the answer is sent once only and is UPSTREAM_UNAVAILABLE', async ({ gateway, upstream }) => {
    upstream.answer(() => resetSocket);
    await fault({ gateway, upstream }, UPDATE_CATEGORY, 'UPSTREAM_UNAVAILABLE');
    expect(upstream.requests.map((r) => r.method)).toEqual(['PATCH']);
    await expectStillServing(gateway, upstream);
  });

  it('a reset in the middle of a chunked body is UPSTREAM_UNAVAILABLE', async ({ gateway, upstream }) => {
    upstream.answer(() => (res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"success":true,"result":[{"id":"k1"');
      setTimeout(() => res.socket?.destroy(), 20);
    });
    await fault({ gateway, upstream }, KEYS_QUERY, 'UPSTREAM_UNAVAILABLE');
    await expectStillServing(gateway, upstream);
  });

  it('a reset in the middle of a body with Content-Length is resumed only with a Range request, refused here: UPSTREAM_UNAVAILABLE', async ({
    gateway,
    upstream,
  }) => {
    upstream.answer(() => (res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '2000' });
      res.write('{"success":true,"result":[{"id":"k1"');
      setTimeout(() => res.socket?.destroy(), 20);
    });
    await fault({ gateway, upstream }, KEYS_QUERY, 'UPSTREAM_UNAVAILABLE');
    // undici may try to fetch the missing bytes with a Range header; this upstream ignores ranges, so nothing is glued together.
    expect(upstream.requests.map((r) => r.headers.range)).toEqual([undefined, 'bytes=36-1999']);
    await expectStillServing(gateway, upstream);
  });
});

describe('bodies the gateway cannot read', () => {
  it('truncated JSON with status 200 is UPSTREAM_BAD_RESPONSE', async ({ gateway, upstream }) => {
    upstream.answer(() => ({ body: '{"success":true,"result":[{"id":"k1","name":"Ke' }));
    const answer = await fault({ gateway, upstream }, KEYS_QUERY, 'UPSTREAM_BAD_RESPONSE');
    expect(answer.body.errors![0]!.message).toBe('The upstream service sent a response the gateway cannot read: the body is not JSON.');
    await expectStillServing(gateway, upstream);
  });

  it('a record that does not fit the schema is UPSTREAM_BAD_RESPONSE at that field, not an internal error', async ({
    gateway,
    upstream,
  }) => {
    upstream.answer(() => ({ body: envelope([{ ...apiKeyRecord(1), name: null, permissions: 'all' }]) }));
    const answer = await fault({ gateway, upstream }, '{ apiKeys(first: 1) { nodes { id permissions } } }', 'UPSTREAM_BAD_RESPONSE');
    expect(answer.body).toEqual({
      data: { apiKeys: null },
      errors: [
        {
          message:
            'The upstream service sent a response the gateway cannot read: the record does not fit field "apiKeys.nodes.permissions".',
          locations: [{ line: 1, column: 34 }],
          path: ['apiKeys', 'nodes', 0, 'permissions'],
          extensions: { code: 'UPSTREAM_BAD_RESPONSE' },
        },
      ],
    });
  });

  it('an empty body on 401 is UNAUTHENTICATED', async ({ gateway, upstream }) => {
    upstream.answer(() => ({ status: 401, body: '' }));
    const answer = await fault({ gateway, upstream }, KEYS_QUERY, 'UNAUTHENTICATED');
    expect(answer.body.errors![0]).toMatchObject({
      message: 'The upstream service answered with HTTP status 401.',
      extensions: { code: 'UNAUTHENTICATED', upstream: { status: 401 } },
    });
    expect(upstream.requests).toHaveLength(1);
  });

  it('a body declared larger than UPSTREAM_MAX_BYTES is refused as UPSTREAM_BAD_RESPONSE', async ({ gateway, upstream }) => {
    const huge = JSON.stringify(envelope(apiKeys(2, 1, { name: 'x'.repeat(MAX_BYTES) })));
    upstream.answer(() => ({ body: huge }));
    const answer = await fault({ gateway, upstream }, KEYS_QUERY, 'UPSTREAM_BAD_RESPONSE');
    expect(answer.body.errors![0]!.message).toBe(
      `The upstream service sent a response the gateway cannot read: the body is larger than ${MAX_BYTES} bytes.`,
    );
    await expectStillServing(gateway, upstream);
  });

  it('an endless chunked body is cut off after UPSTREAM_MAX_BYTES, not buffered whole', async ({ gateway, upstream }) => {
    let written = 0;
    const ended = new Promise<void>((resolve) => {
      upstream.answer(() => (res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        const chunk = 'x'.repeat(16 * 1024);
        const pump = () => {
          while (!res.destroyed && written < 64 * MAX_BYTES && res.write(chunk)) written += chunk.length;
          if (!res.destroyed && written < 64 * MAX_BYTES) res.once('drain', pump);
        };
        res.on('close', () => resolve());
        pump();
      });
    });
    await fault({ gateway, upstream }, KEYS_QUERY, 'UPSTREAM_BAD_RESPONSE');
    await ended;
    // The gateway hung up long before the 4 MiB this upstream was ready to send (socket buffers hold some).
    expect(written).toBeLessThan(64 * MAX_BYTES);
    await expectStillServing(gateway, upstream);
  });
});

describe('an upstream that tries to amplify or leak', () => {
  /** A page of 25 keys whose names make its body just under UPSTREAM_MAX_BYTES. */
  const fullPage = (from: number, next: number | null) => {
    const name = 'n'.repeat(Math.floor(MAX_BYTES / 25) - 400);
    const body = JSON.stringify(apiKeyPage(apiKeys(25, from, { name }), next));
    expect(Buffer.byteLength(body)).toBeGreaterThan(MAX_BYTES - 12 * 1024);
    expect(Buffer.byteLength(body)).toBeLessThanOrEqual(MAX_BYTES);
    return body;
  };

  it('pages each within UPSTREAM_MAX_BYTES are read only up to UPSTREAM_MAX_BYTES together: the page past it is UPSTREAM_BAD_RESPONSE', async ({
    gateway,
    upstream,
  }) => {
    upstream.answer((request) => {
      const from = Number(request.query.cursor ?? 0);
      return { body: fullPage(from + 1, from + 25) };
    });
    const answer = await fault({ gateway, upstream }, '{ apiKeys(first: 100) { nodes { name } } }', 'UPSTREAM_BAD_RESPONSE');
    expect(answer.body).toEqual({
      data: { apiKeys: null },
      errors: [
        {
          message: `The upstream service sent a response the gateway cannot read: the answers to this request are larger than ${MAX_BYTES} bytes together.`,
          locations: [{ line: 1, column: 3 }],
          path: ['apiKeys'],
          extensions: { code: 'UPSTREAM_BAD_RESPONSE' },
        },
      ],
    });
    expect(upstream.requests).toHaveLength(2);
    await expectStillServing(gateway, upstream);
  });

  it('the operations of a batch share UPSTREAM_MAX_BYTES, as they share the upstream calls', async ({ gateway, upstream }) => {
    upstream.answer((request) => ({ body: fullPage(Number(request.query.limit), null) }));
    const response = await fetch(gateway.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...AUTH },
      body: JSON.stringify([{ query: '{ apiKeys(first: 24) { nodes { id } } }' }, { query: '{ apiKeys(first: 25) { nodes { id } } }' }]),
    });
    const [first, second] = (await response.json()) as Array<{ data: { apiKeys: { nodes: unknown[] } | null }; errors?: unknown[] }>;
    expect(first?.data.apiKeys?.nodes).toHaveLength(24);
    expect(second).toMatchObject({ data: { apiKeys: null }, errors: [{ extensions: { code: 'UPSTREAM_BAD_RESPONSE' } }] });
  });

  it('100,000 error objects in one answer become 21 errors, and /health answers meanwhile', async ({ start }) => {
    const upstream = await start.upstream(() => ({
      status: 400,
      body: { success: false, result: null, errors: Array.from({ length: 100_000 }, () => ({ message: 'bad' })), links: {} },
    }));
    const gateway = await start.gateway({ upstreamUrl: new URL(upstream.url) });
    const [answer, health] = await Promise.all([
      gateway.graphql(UPDATE_CATEGORY, { headers: AUTH }),
      fetch(gateway.url.replace(/\/graphql$/, '/health')),
    ]);
    expect(health.status).toBe(200);
    expect(answer.body.data).toEqual({ updateCategory: null });
    expect(answer.body.errors).toHaveLength(21);
    expect(answer.body.errors![0]).toEqual({
      message: 'bad',
      locations: [{ line: 1, column: 12 }],
      path: ['updateCategory'],
      extensions: { code: 'BAD_USER_INPUT', upstream: { status: 400, error: { message: 'bad' } } },
    });
    expect(answer.body.errors![20]).toEqual({
      message: 'The upstream service reported 99980 more errors, not shown.',
      locations: [{ line: 1, column: 12 }],
      path: ['updateCategory'],
      extensions: { code: 'BAD_USER_INPUT', upstream: { status: 400, omittedErrors: 99_980 } },
    });
  });

  it('an error object passes on only its message, code and field: no stack, host or echoed token', async ({ gateway, upstream }) => {
    upstream.answer(() => ({
      status: 500,
      body: {
        success: false,
        result: null,
        errors: [
          {
            message: `upstream failed for ${AUTH.authorization}`,
            code: 'E_DB',
            field: 'name',
            stack: 'Error: connect ECONNREFUSED\n    at TCPConnectWrap.afterConnect (node:net:1:1)',
            host: 'db-7.internal.example',
            request: { headers: AUTH },
          },
        ],
        links: {},
      },
    }));
    const answer = await fault({ gateway, upstream }, UPDATE_CATEGORY, 'UPSTREAM_ERROR');
    expect(answer.body.errors![0]).toEqual({
      message: 'upstream failed for Bearer [redacted]',
      locations: [{ line: 1, column: 12 }],
      path: ['updateCategory'],
      extensions: {
        code: 'UPSTREAM_ERROR',
        upstream: { status: 500, error: { message: 'upstream failed for Bearer [redacted]', code: 'E_DB', field: 'name' } },
      },
    });
    expect(JSON.stringify(answer.body)).not.toContain('db-7');
  });
});

describe('redirects', () => {
  for (const status of [301, 302, 307, 308]) {
    it(`a ${status} to another host is UPSTREAM_ERROR and that host receives nothing`, async ({ gateway, upstream, elsewhere }) => {
      upstream.answer(() => ({ status, headers: { location: `${elsewhere.url}/api_keys?limit=2` }, body: '' }));
      const answer = await fault({ gateway, upstream }, KEYS_QUERY, 'UPSTREAM_ERROR');
      expect(answer.body.errors![0]!.extensions).toEqual({ code: 'UPSTREAM_ERROR', upstream: { status } });
      expect(JSON.stringify(answer.body)).not.toContain(new URL(elsewhere.url).host);
      expect(upstream.requests).toHaveLength(1);
      expect(elsewhere.requests).toEqual([]);
    });
  }
});

describe('links to another host', () => {
  it('a next-page link to another host only lends its cursor: the next page is fetched from UPSTREAM_URL', async ({
    gateway,
    upstream,
    elsewhere,
  }) => {
    upstream.answer((request) =>
      request.query.cursor === undefined
        ? { body: apiKeyPage(apiKeys(25), 'page-2', elsewhere.url) }
        : { body: apiKeyPage(apiKeys(5, 26)) },
    );
    const answer = await gateway.graphql('{ apiKeys(first: 30) { nodes { id } } }', { headers: AUTH });
    expect((answer.body.data as { apiKeys: { nodes: unknown[] } }).apiKeys.nodes).toHaveLength(30);
    expect(upstream.requests.map((r) => [r.path, r.query, r.headers.authorization])).toEqual([
      ['/v2/api_keys', { limit: '25' }, AUTH.authorization],
      ['/v2/api_keys', { limit: '5', cursor: 'page-2' }, AUTH.authorization],
    ]);
    expect(elsewhere.requests).toEqual([]);
  });
});

describe('next-page links that loop', () => {
  it('a link back to a page already read is UPSTREAM_BAD_RESPONSE, not records served twice', async ({ gateway, upstream }) => {
    // Page a links to b, and b back to a.
    upstream.answer((request) => {
      const cursor = request.query.cursor;
      return { body: apiKeyPage(apiKeys(25, cursor === 'b' ? 51 : cursor === 'a' ? 26 : 1), cursor === 'a' ? 'b' : 'a') };
    });
    const answer = await fault({ gateway, upstream }, '{ apiKeys(first: 100) { nodes { id } } }', 'UPSTREAM_BAD_RESPONSE');
    expect(answer.body).toEqual({
      data: { apiKeys: null },
      errors: [
        {
          message: 'The upstream service sent a response the gateway cannot read: links.next points back to a page already read.',
          locations: [{ line: 1, column: 3 }],
          path: ['apiKeys'],
          extensions: { code: 'UPSTREAM_BAD_RESPONSE' },
        },
      ],
    });
    expect(upstream.requests.map((request) => request.query.cursor)).toEqual([undefined, 'a', 'b']);
    await expectStillServing(gateway, upstream);
  });
});

describe('deadline and cancellation', () => {
  it('REQUEST_DEADLINE_MS bounds a chained connection: pages stop once the deadline is used up', async ({ upstream, start }) => {
    const chained = await start.gateway({
      upstreamUrl: new URL(upstream.url),
      upstreamTimeoutMs: 10_000,
      requestDeadlineMs: 500,
      breakerMinCalls: 10_000,
    });
    // Every page takes 200 ms, well inside the per-call timeout; four of them do not fit in 500 ms.
    const keys = apiKeyList(Infinity);
    upstream.answer((request) => ({ ...keys(request), delayMs: 200 }));
    const answer = await chained.graphql('{ apiKeys(first: 100) { nodes { id } } }', { headers: AUTH });
    expect(codes(answer)).toEqual(['UPSTREAM_TIMEOUT']);
    expect(answer.body.errors![0]!.message).toBe('The operation used up its deadline of 500 ms before the upstream service answered.');
    expect(upstream.requests.length).toBeLessThan(4);
  });

  it('a caller that disconnects cancels its upstream request', async ({ gateway, upstream }) => {
    let upstreamClosed!: () => void;
    const closed = new Promise<void>((resolve) => (upstreamClosed = resolve));
    let received!: () => void;
    const arrived = new Promise<void>((resolve) => (received = resolve));
    // The upstream never answers; it only notices when the gateway hangs up.
    upstream.answer(() => (res) => {
      res.on('close', () => upstreamClosed());
      received();
    });
    const controller = new AbortController();
    const pending = fetch(gateway.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...AUTH },
      body: JSON.stringify({ query: KEYS_QUERY }),
      signal: controller.signal,
    }).catch((error: unknown) => error);
    await arrived;
    controller.abort();
    await pending;
    await closed;
    expect(upstream.requests).toHaveLength(1);
    await expectStillServing(gateway, upstream);
  });
});
