import { describe, expect } from 'vitest';
import { apqEntryBytes } from '../../src/state/persisted-queries.js';
import { apqExtensions, sha256 } from '../support/apq.js';
import { SANDBOX_AUTH } from '../support/auth.js';
import { gatewayOverSandbox, test } from '../support/fixtures.js';

/**
 * Batched requests (a JSON array of operations) and automatic persisted queries over real HTTP,
 * against the sandbox's data. The real clients that send them are driven in apollo-client.test.ts
 * and urql.test.ts.
 */
const it = gatewayOverSandbox({ maxUpstreamCalls: 10 });
const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/graphql-response+json', ...SANDBOX_AUTH };

async function post(url: string, body: unknown, headers: Record<string, string> = JSON_HEADERS) {
  const response = await fetch(url, { method: 'POST', headers, body: JSON.stringify(body) });
  return { status: response.status, body: (await response.json()) as unknown };
}

describe('a batch', () => {
  it('is answered with an array, in the order of the operations', async ({ gateway }) => {
    const answer = await post(gateway.url, [
      { query: 'query First { apiKeys(first: 2) { nodes { id name } } }' },
      { query: 'mutation Rename { updateCategory(input: { id: "cat_001", name: "Batched" }) { category { id name } } }' },
      { query: '{ __typename }' },
    ]);
    expect(answer).toEqual({
      status: 200,
      body: [
        {
          data: {
            apiKeys: {
              nodes: [
                { id: 'ak_001', name: 'API key 1' },
                { id: 'ak_002', name: 'API key 2' },
              ],
            },
          },
        },
        { data: { updateCategory: { category: { id: 'cat_001', name: 'Batched' } } } },
        { data: { __typename: 'Query' } },
      ],
    });
  });

  it('of more than MAX_BATCH_SIZE operations is refused with 413 before anything runs', async ({ gateway }) => {
    const answer = await post(
      gateway.url,
      Array.from({ length: 11 }, () => ({ query: '{ apiKeys(first: 1) { nodes { id } } }' })),
    );
    expect(answer).toEqual({
      status: 413,
      body: { errors: [{ message: 'Batching is limited to 10 operations per request.', extensions: { code: 'BAD_REQUEST' } }] },
    });
  });

  it('shares one MAX_UPSTREAM_CALLS: the operation that does not fit is refused, the others run', async ({ gateway }) => {
    const hundred = { query: '{ apiKeys(first: 100) { nodes { id } } }' };
    const answer = (await post(gateway.url, [hundred, hundred, hundred])) as { status: number; body: Array<Record<string, unknown>> };
    expect(answer.body.map((one) => ((one.data as { apiKeys?: { nodes: unknown[] } })?.apiKeys?.nodes ?? []).length)).toEqual([62, 62, 0]);
    expect(answer.body[2]).toEqual({
      errors: [
        {
          message:
            'This operation would need 4 upstream requests, more than the 2 left of the 10 upstream requests allowed per HTTP request (MAX_UPSTREAM_CALLS). Ask for fewer records or fewer aliased fields per request.',
          extensions: { code: 'LIMIT_EXCEEDED', limit: 'upstreamCalls', max: 10 },
        },
      ],
    });
  });

  it('checks each operation against the depth, cost and alias limits as if it came alone', async ({ gateway }) => {
    const deep = '{ apiKeys { edges { node { id } } } a: __typename b: __typename }';
    const answer = (await post(gateway.url, [
      { query: `{ ${Array.from({ length: 16 }, (_, i) => `k${i}: apiKeys(first: 1) { nodes { id } }`).join(' ')} }` },
      { query: deep },
    ])) as { body: Array<Record<string, unknown>> };
    expect(answer.body[0]).toMatchObject({ errors: [{ extensions: { code: 'LIMIT_EXCEEDED', limit: 'aliases' } }] });
    expect(answer.body[1]).toMatchObject({ data: { a: 'Query', b: 'Query' } });
  });
});

describe('automatic persisted queries', () => {
  const QUERY = 'query Apq { apiKeys(first: 1) { nodes { id } } }';

  it('answer an unknown hash PERSISTED_QUERY_NOT_FOUND, register it with its text, then run it by hash alone, by GET too', async ({
    gateway,
  }) => {
    const extensions = apqExtensions(QUERY);
    expect(await post(gateway.url, { extensions })).toEqual({
      status: 404,
      body: { errors: [{ message: 'PersistedQueryNotFound', extensions: { code: 'PERSISTED_QUERY_NOT_FOUND' } }] },
    });
    const data = { data: { apiKeys: { nodes: [{ id: 'ak_001' }] } } };
    expect(await post(gateway.url, { query: QUERY, extensions })).toEqual({ status: 200, body: data });
    expect(await post(gateway.url, { extensions })).toEqual({ status: 200, body: data });
    const get = await fetch(`${gateway.url}?extensions=${encodeURIComponent(JSON.stringify(extensions))}`, { headers: SANDBOX_AUTH });
    expect([get.status, await get.json()]).toEqual([200, data]);
  });

  it('refuse a query that is not a string 400 BAD_REQUEST, even sent with the hash of its text form', async ({ gateway }) => {
    for (const [query, type] of [
      [{ apiKeys: 1 }, 'object'],
      [123, 'number'],
      [false, 'boolean'],
    ] as const) {
      expect(await post(gateway.url, { query, extensions: apqExtensions(String(query)) })).toEqual({
        status: 400,
        body: { errors: [{ message: `Expected "query" param to be a string, but given ${type}.`, extensions: { code: 'BAD_REQUEST' } }] },
      });
    }
  });

  it('refuse a text whose hash is not the one sent, and register nothing', async ({ gateway }) => {
    const extensions = apqExtensions('query Other { __typename }');
    expect(await post(gateway.url, { query: QUERY, extensions })).toEqual({
      status: 400,
      body: { errors: [{ message: 'PersistedQueryMismatch', extensions: { code: 'PERSISTED_QUERY_MISMATCH' } }] },
    });
    expect((await post(gateway.url, { extensions })).status).toBe(404);
  });
});

describe('the persisted query store', () => {
  test('holds at most APQ_STORE_BYTES of texts, hashes and entries, dropping the least recently used', async ({ start }) => {
    const sandbox = await start.sandbox();
    const [a, b] = ['query A { __typename }', `query B { __typename ${' '.repeat(100)}}`];
    // Room for the larger entry alone.
    const gateway = await start.gateway({ upstreamUrl: new URL(sandbox.url), apqStoreBytes: apqEntryBytes(sha256(b), b) });
    const run = (query: string, withText: boolean) =>
      post(gateway.url, { ...(withText ? { query } : {}), extensions: apqExtensions(query) });
    expect((await run(a, true)).status).toBe(200);
    expect((await run(a, false)).status).toBe(200);
    expect((await run(b, true)).status).toBe(200);
    expect([(await run(a, false)).status, (await run(b, false)).status]).toEqual([404, 200]);
  });

  test('is off with trusted documents: a text is never registered', async ({ start }) => {
    const sandbox = await start.sandbox();
    const manifest = new URL('../../examples/generated/persisted-documents.json', import.meta.url).pathname;
    const gateway = await start.gateway({ upstreamUrl: new URL(sandbox.url), trustedDocuments: [manifest] });
    const extensions = apqExtensions(QUERY_TEXT);
    const registering = await post(gateway.url, { query: QUERY_TEXT, extensions });
    expect(registering.status).toBe(400);
    expect(JSON.stringify(registering.body)).toContain('TRUSTED_DOCUMENT_REQUIRED');
    expect(JSON.stringify((await post(gateway.url, { extensions })).body)).toContain('TRUSTED_DOCUMENT_REQUIRED');
  });
});

const QUERY_TEXT = '{ __typename }';
