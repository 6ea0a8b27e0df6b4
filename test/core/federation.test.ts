import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildSubgraphSchema } from '@apollo/subgraph';
import { createGatewayRuntime } from '@graphql-hive/gateway-runtime';
import { composeServices } from '@theguild/federation-composition';
import { parse } from 'graphql';
import { createYoga } from 'graphql-yoga';
import { describe, expect } from 'vitest';
import { AUTH } from '../support/auth.js';
import { gatewayOverUpstream } from '../support/fixtures.js';
import { rawHttp } from '../support/raw-http.js';
import { apiKeyList, apiKeyPage, apiKeys } from '../support/records.js';

/**
 * FEDERATION=true: the gateway as one subgraph of a supergraph. Composed with
 * @theguild/federation-composition beside a second subgraph that defines PageInfo and DateTime
 * too and adds fields to ApiKey and Category, and queried through a real router (Hive Gateway's
 * runtime, in-process) as a supergraph would run it.
 */
const SUBGRAPH_SDL = readFileSync(new URL('../../subgraph.graphql', import.meta.url), 'utf8');
// The upstream's 62 keys, 25 a page, with the real service's next links.
const it = gatewayOverUpstream(apiKeyList(62), { federation: true, maxUpstreamCalls: 3 });

const ENTITIES = 'query ($r: [_Any!]!) { _entities(representations: $r) { ... on ApiKey { id name } } }';
/** `count` ApiKey representations, k1 to k<count>. */
const keys = (count: number) => Array.from({ length: count }, (_, i) => ({ __typename: 'ApiKey', id: `k${i + 1}` }));

/** A second subgraph, as another team runs it: its own PageInfo and DateTime, and fields on our entities. */
const OTHER_SDL = `
  extend schema @link(url: "https://specs.apollo.dev/federation/v2.6", import: ["@key", "@shareable"])
  scalar DateTime
  type PageInfo @shareable { hasNextPage: Boolean! hasPreviousPage: Boolean! startCursor: String endCursor: String }
  type ApiKey @key(fields: "id") { id: ID! owner: String! }
  type Category @key(fields: "id") { id: ID! videoCount: Int! }
  type Query { featured(ids: [ID!]!): [ApiKey!]! lastRun: DateTime! }
`;

async function startOtherSubgraph() {
  const yoga = createYoga({
    schema: buildSubgraphSchema({
      typeDefs: parse(OTHER_SDL),
      resolvers: {
        Query: {
          featured: (_: unknown, { ids }: { ids: string[] }) => ids.map((id) => ({ id })),
          lastRun: () => '2025-01-01T00:00:00.000Z',
        },
        ApiKey: { owner: ({ id }: { id: string }) => `owner of ${id}` },
      } as never,
    }),
    logging: false,
  });
  const server = createServer(yoga);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const routed = it.extend('router', { scope: 'file' }, async ({ gateway }, { onCleanup }) => {
  const other = await startOtherSubgraph();
  const { supergraphSdl, errors } = composeServices([
    { name: 'vms', typeDefs: parse(SUBGRAPH_SDL), url: gateway.url },
    { name: 'other', typeDefs: parse(OTHER_SDL), url: other.url },
  ]);
  if (errors?.length) throw new Error(errors.map((error) => error.message).join('\n'));
  const router = createGatewayRuntime({
    supergraph: supergraphSdl!,
    logging: false,
    maskedErrors: false,
    // Hive Gateway forwards nothing by default; a deployment names the caller's headers it passes on.
    propagateHeaders: { fromClientToSubgraphs: ({ request }) => ({ authorization: request.headers.get('authorization') ?? '' }) },
  });
  onCleanup(async () => {
    await router.dispose();
    await other.close();
  });
  return async (query: string, headers: Record<string, string> = AUTH) => {
    const response = await router.fetch('http://router/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ query }),
    });
    return response.json() as Promise<{
      data?: unknown;
      errors?: Array<{ message: string; path?: unknown[]; extensions?: Record<string, unknown> }>;
    }>;
  };
});

describe('the subgraph', () => {
  it('knows neither @defer nor @stream, which the router plans: a document with them is refused as unknown, and for nothing else', async ({
    gateway,
  }) => {
    const answer = await gateway.graphql('{ _service { sdl @stream(initialCount: -1) } }');
    expect(answer.body.errors?.map(({ message }) => message)).toEqual(['Unknown directive "@stream".']);
  });

  it('answers _service { sdl } without a token with the committed subgraph.graphql', async ({ gateway, upstream }) => {
    const answer = await gateway.graphql('{ _service { sdl } }');
    expect(answer.body).toEqual({ data: { _service: { sdl: SUBGRAPH_SDL.replace(/\n$/, '') } } });
    expect(upstream.requests).toEqual([]);
  });

  it('declares no @defer or @stream (a router plans @defer itself): a document with them is refused, nothing sent upstream', async ({
    gateway,
    upstream,
  }) => {
    const answer = await gateway.graphql('{ apiKeys(first: 2) { edges @stream { cursor } ... @defer { pageInfo { hasNextPage } } } }', {
      headers: AUTH,
    });
    expect([answer.status, answer.body.errors?.map((error) => [error.message, (error.extensions as { code: string }).code])]).toEqual([
      400,
      [
        ['Unknown directive "@stream".', 'GRAPHQL_VALIDATION_FAILED'],
        ['Unknown directive "@defer".', 'GRAPHQL_VALIDATION_FAILED'],
      ],
    ]);
    expect(SUBGRAPH_SDL).not.toMatch(/directive @(defer|stream)/);
    expect(upstream.requests).toEqual([]);
  });

  it('is not there when FEDERATION is off: the schema is exactly schema.graphql', async ({ start }) => {
    const upstream = await start.upstream();
    const standalone = await start.gateway({ upstreamUrl: new URL(upstream.url) });
    const answer = await standalone.graphql('{ _service { sdl } }');
    expect(answer.body.errors?.[0]?.extensions).toMatchObject({ code: 'GRAPHQL_VALIDATION_FAILED' });
  });

  it('resolves ApiKey representations with one walk of GET /api_keys that stops once all are found', async ({ gateway, upstream }) => {
    const answer = await gateway.graphql(`query ($r: [_Any!]!) { _entities(representations: $r) { ... on ApiKey { id name } } }`, {
      variables: {
        r: [
          { __typename: 'ApiKey', id: 'k30' },
          { __typename: 'ApiKey', id: 'k2' },
          { __typename: 'ApiKey', id: 'k999' },
        ],
      },
      headers: AUTH,
    });
    expect(answer.body).toEqual({
      data: { _entities: [{ id: 'k30', name: 'Key 30' }, { id: 'k2', name: 'Key 2' }, null] },
      errors: [
        {
          message: 'No API key has this id.',
          locations: [{ line: 1, column: 24 }],
          path: ['_entities', 2],
          extensions: { code: 'NOT_FOUND' },
        },
      ],
    });
    // k999 is on no page: the walk reads all three pages, once for the three ids together.
    expect(upstream.requests.map((request) => [request.path, request.query, request.headers.authorization])).toEqual([
      ['/v2/api_keys', { limit: '25' }, AUTH.authorization],
      ['/v2/api_keys', { cursor: '25', limit: '25' }, AUTH.authorization],
      ['/v2/api_keys', { cursor: '50', limit: '25' }, AUTH.authorization],
    ]);
  });

  it('stops the walk at the page that holds the last id asked for', async ({ gateway, upstream }) => {
    await gateway.graphql(`{ _entities(representations: [{ __typename: "ApiKey", id: "k3" }]) { ... on ApiKey { name } } }`, {
      headers: AUTH,
    });
    expect(upstream.requests).toHaveLength(1);
  });

  it('answers _entities UNAUTHENTICATED once without a token, however many representations, and sends nothing', async ({
    gateway,
    upstream,
  }) => {
    const answer = await gateway.graphql(ENTITIES, { variables: { r: keys(75) } });
    expect(answer.body).toEqual({
      data: null,
      errors: [
        {
          message: 'A bearer token is required: send the header "Authorization: Bearer <token>".',
          locations: [{ line: 1, column: 24 }],
          path: ['_entities'],
          extensions: { code: 'UNAUTHENTICATED' },
        },
      ],
    });
    expect(upstream.requests).toEqual([]);
  });
});

describe('a walk whose next-page links loop', () => {
  it('is UPSTREAM_BAD_RESPONSE at the first cursor read twice: it does not spin on the request cache nor spend the budget', async ({
    gateway,
    upstream,
  }) => {
    // Page a links to b, and b back to a: k999 is on none of them.
    upstream.answer((request) => {
      const cursor = request.query.cursor;
      return { body: apiKeyPage(apiKeys(25, cursor === 'a' ? 26 : 1), cursor === 'a' ? 'b' : 'a') };
    });
    const answer = await gateway.graphql(ENTITIES, { variables: { r: [{ __typename: 'ApiKey', id: 'k999' }] }, headers: AUTH });
    expect(answer.body).toEqual({
      data: { _entities: [null] },
      errors: [
        {
          message: 'The upstream service sent a response the gateway cannot read: links.next points back to a page already read.',
          locations: [{ line: 1, column: 24 }],
          path: ['_entities', 0],
          extensions: { code: 'UPSTREAM_BAD_RESPONSE' },
        },
      ],
    });
    expect(upstream.requests.map((request) => request.query.cursor)).toEqual([undefined, 'a', 'b']);
  });
});

describe('representations a router would never send', () => {
  const refused = (index: number, message: string) => ({
    message,
    locations: [{ line: 1, column: 24 }],
    path: ['_entities', index],
    extensions: { code: 'BAD_USER_INPUT' },
  });
  const notAnEntity = (index: number) =>
    refused(index, `The representation's "__typename" must name an entity this subgraph resolves: ApiKey.`);
  const noKey = (index: number) => refused(index, 'The representation needs the key of ApiKey: "id", a non-empty string.');
  /** The errors in the order of their items (an item's key is checked a tick after its type). */
  const inOrder = (body: { errors?: Array<Record<string, unknown>> }) => ({
    ...body,
    errors: body.errors?.toSorted((a, b) => ((a.path as number[])[1] ?? 0) - ((b.path as number[])[1] ?? 0)),
  });

  it('are BAD_USER_INPUT each at its index, and the valid ones beside them are resolved', async ({ gateway, upstream }) => {
    const answer = await gateway.graphql(ENTITIES, {
      variables: {
        r: [
          { __typename: 'Nope', id: 'k1' },
          { __typename: 'ApiKey', id: 'k2' },
          JSON.parse('{ "__typename": "__proto__", "id": "k1" }'),
          { __typename: 'constructor', id: 'k1' },
          { id: 'k1' },
          { __typename: 'Query' },
          { __typename: 'Category', id: 'cat_1' },
          { __typename: 'ApiKey' },
          { __typename: 'ApiKey', id: 7 },
          'ApiKey',
          { __typename: 'ApiKey', id: 'k3' },
        ],
      },
      headers: AUTH,
    });
    expect(answer).toMatchObject({ status: 200 });
    expect(inOrder(answer.body)).toEqual({
      data: { _entities: [null, { id: 'k2', name: 'Key 2' }, null, null, null, null, null, null, null, null, { id: 'k3', name: 'Key 3' }] },
      errors: [
        notAnEntity(0),
        notAnEntity(2),
        notAnEntity(3),
        notAnEntity(4),
        notAnEntity(5),
        notAnEntity(6),
        noKey(7),
        noKey(8),
        refused(9, 'The representation is not an object.'),
      ],
    });
    // One page holds k2 and k3: the refused ones asked for nothing.
    expect(upstream.requests).toHaveLength(1);
  });

  it('nested 10,000 levels deep are BAD_USER_INPUT at their index (or ignored where the key is fine), never a 500', async ({ gateway }) => {
    const deep = `${'{"a":'.repeat(10_000)}"k1"${'}'.repeat(10_000)}`;
    const representations = [
      `{"__typename":"ApiKey","id":${deep}}`,
      deep,
      `{"__typename":${deep}}`,
      `{"__typename":"ApiKey","id":"k1","extra":${deep}}`,
      `{"__typename":"ApiKey","id":"k2","extra":${'['.repeat(10_000)}${']'.repeat(10_000)}}`,
    ];
    // Written by hand: JSON.stringify itself overflows its stack on such a value.
    const body = `{"query":${JSON.stringify(ENTITIES)},"variables":{"r":[${representations.join(',')}]}}`;
    const answer = await rawHttp(gateway.url, { method: 'POST', headers: { 'content-type': 'application/json', ...AUTH }, body });
    expect([answer.status, inOrder(JSON.parse(answer.body.toString()))]).toEqual([
      200,
      {
        data: { _entities: [null, null, null, { id: 'k1', name: 'Key 1' }, { id: 'k2', name: 'Key 2' }] },
        errors: [noKey(0), notAnEntity(1), notAnEntity(2)],
      },
    ]);
  });
});

describe('limits on _entities, as on any field', () => {
  const tooMany = (count: number) => ({
    status: 400,
    body: {
      errors: [
        {
          message: `This operation asks for ${count} entity representations, more than the 75 that one request's upstream calls can find (MAX_UPSTREAM_CALLS × 25). Send fewer representations per request.`,
          extensions: { code: 'LIMIT_EXCEEDED', limit: 'representations', max: 75 },
        },
      ],
    },
  });

  it('25,000 representations without a token: one small answer before anything resolves, and /health answers meanwhile', async ({
    gateway,
    upstream,
  }) => {
    const flood = gateway.graphql(ENTITIES, { variables: { r: keys(25_000) } });
    const health = await fetch(gateway.url.replace(/\/graphql$/, '/health'));
    expect(health.status).toBe(200);
    const answer = await flood;
    // No `data` at all: execution never began, so no representation was looked at.
    expect({ status: answer.status, body: answer.body }).toEqual(tooMany(25_000));
    expect(JSON.stringify(answer.body).length).toBeLessThan(400);
    expect(upstream.requests).toEqual([]);
  });

  it('as many as the upstream-call budget can find (MAX_UPSTREAM_CALLS × 25) are resolved; one more is refused whole', async ({
    gateway,
    upstream,
  }) => {
    const all = await gateway.graphql(ENTITIES, { variables: { r: keys(75) }, headers: AUTH });
    expect((all.body.data as { _entities: unknown[] })._entities.filter((entity) => entity !== null)).toHaveLength(62);
    expect(all.body.errors?.map((error) => error.extensions)).toEqual(Array.from({ length: 13 }, () => ({ code: 'NOT_FOUND' })));
    expect(upstream.requests).toHaveLength(3);
    upstream.requests.length = 0;

    const answer = await gateway.graphql(ENTITIES, { variables: { r: keys(76) }, headers: AUTH });
    expect({ status: answer.status, body: answer.body }).toEqual(tooMany(76));
    expect(upstream.requests).toEqual([]);
  });

  it('counts the representations of every _entities field of the request: aliases and a batch share the bound', async ({
    gateway,
    upstream,
  }) => {
    const aliased = await gateway.graphql(
      'query ($r: [_Any!]!) { a: _entities(representations: $r) { __typename } b: _entities(representations: $r) { __typename } }',
      { variables: { r: keys(40) }, headers: AUTH },
    );
    expect({ status: aliased.status, body: aliased.body }).toEqual(tooMany(80));

    const batch = await fetch(gateway.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json', ...AUTH },
      body: JSON.stringify([
        { query: ENTITIES, variables: { r: keys(50) } },
        { query: ENTITIES, variables: { r: keys(50) } },
      ]),
    });
    const [first, second] = (await batch.json()) as Array<{ data?: { _entities: unknown[] }; errors?: Array<{ message: string }> }>;
    expect(first?.data?._entities).toHaveLength(50);
    expect(second).toEqual({
      errors: [
        {
          message:
            "This operation asks for 50 entity representations, more than the 75 that one request's upstream calls can find (MAX_UPSTREAM_CALLS × 25), of which 25 are left for this operation. Send fewer representations per request.",
          extensions: { code: 'LIMIT_EXCEEDED', limit: 'representations', max: 75 },
        },
      ],
    });
    expect(upstream.requests).toHaveLength(2);
  });

  it('MAX_UPSTREAM_CALLS bounds the walk: an id past the budget is LIMIT_EXCEEDED, and no further page is read', async ({
    start,
    upstream,
  }) => {
    const small = await start.gateway({ upstreamUrl: new URL(upstream.url), federation: true, maxUpstreamCalls: 1 });
    const answer = await small.graphql(`{ _entities(representations: [{ __typename: "ApiKey", id: "k30" }]) { ... on ApiKey { name } } }`, {
      headers: AUTH,
    });
    expect(answer.body.errors?.map((error) => [error.path, error.extensions])).toEqual([
      [['_entities', 0], { code: 'LIMIT_EXCEEDED', limit: 'upstreamCalls', max: 1 }],
    ]);
    expect(upstream.requests).toHaveLength(1);
  });

  it('depth, aliases and cost apply before anything runs', async ({ start, upstream }) => {
    const shallow = await start.gateway({ upstreamUrl: new URL(upstream.url), federation: true, maxDepth: 1 });
    const answer = await shallow.graphql(
      `{ _entities(representations: [{ __typename: "ApiKey", id: "k1" }]) { ... on ApiKey { name } } }`,
      {
        headers: AUTH,
      },
    );
    expect(answer.status).toBe(400);
    expect(answer.body.errors?.[0]?.extensions).toMatchObject({ code: 'LIMIT_EXCEEDED', limit: 'depth' });
    expect(upstream.requests).toEqual([]);
  });
});

describe('composition', () => {
  it('succeeds beside a subgraph that also defines PageInfo and DateTime and adds fields to ApiKey and Category', () => {
    const { supergraphSdl, errors } = composeServices([
      { name: 'vms', typeDefs: parse(SUBGRAPH_SDL), url: 'http://vms/graphql' },
      { name: 'other', typeDefs: parse(OTHER_SDL), url: 'http://other/graphql' },
    ]);
    expect(errors ?? []).toEqual([]);
    expect(supergraphSdl).toContain('type PageInfo');
    expect(supergraphSdl).toMatch(/type Category[^{]*\{[^}]*videoCount: Int!/);
  });
});

describe('through a router', () => {
  routed('joins fields of both subgraphs, with the caller’s token going upstream', async ({ router, upstream }) => {
    const answer = await router('{ featured(ids: ["k1", "k26"]) { id owner name permissions } lastRun }');
    expect(answer).toEqual({
      data: {
        featured: [
          { id: 'k1', owner: 'owner of k1', name: 'Key 1', permissions: [] },
          { id: 'k26', owner: 'owner of k26', name: 'Key 26', permissions: ['fetch'] },
        ],
        lastRun: '2025-01-01T00:00:00.000Z',
      },
    });
    expect(upstream.requests.map((request) => request.headers.authorization)).toEqual([AUTH.authorization, AUTH.authorization]);
  });

  routed('passes UNAUTHENTICATED without a token, at the field’s path, and sends nothing upstream', async ({ router, upstream }) => {
    const answer = await router('{ featured(ids: ["k1"]) { id name } }', {});
    // The router maps `_entities` paths onto its own query (Hive Gateway leaves out the list index).
    expect(answer.errors?.map((error) => [error.path, error.extensions?.code])).toEqual([[['featured', 'name'], 'UNAUTHENTICATED']]);
    expect(upstream.requests).toEqual([]);
  });

  routed('passes NOT_FOUND for an id the walk does not find', async ({ router }) => {
    const missing = await router('{ featured(ids: ["k999"]) { id name } }');
    expect(missing.errors?.map((error) => [error.message, error.path, error.extensions?.code])).toEqual([
      ['No API key has this id.', ['featured', 'name'], 'NOT_FOUND'],
    ]);
  });
});
