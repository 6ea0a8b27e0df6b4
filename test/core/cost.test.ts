import fc from 'fast-check';
import { parse } from 'graphql';
import { describe, expect } from 'vitest';
import { MAX_FIRST } from '../../src/schema/api-key.js';
import { schema } from '../../src/schema/index.js';
import { estimateUpstreamCalls, mostUpstreamCalls } from '../../src/schema/upstream-calls.js';
import { AUTH, SANDBOX_AUTH } from '../support/auth.js';
import { gatewayOverSandbox, test } from '../support/fixtures.js';
import type { TestGateway } from '../support/gateway.js';
import { captureLogs } from '../support/logs.js';
import { apiKeyList, CERTIFICATE } from '../support/records.js';

/**
 * What an operation costs in REST calls: its estimate before it runs is never below the calls it
 * makes, for every root field and every argument the schema allows (against the sandbox), and each
 * answer tells both in `extensions.cost` where it may (COST_SHOWN, `X-Cost: 1`, the upstream view).
 */
const it = gatewayOverSandbox();

/** Each root field of the schema, with the operations that run it as a client would: every root field must be here. */
const ROOT_FIELD_OPERATIONS: Record<string, Array<{ query: string; variables?: Record<string, unknown> }>> = {
  'Query.apiKeys': [{ query: '{ apiKeys { nodes { id } } }' }, { query: '{ apiKeys(first: 0) { nodes { id } } }' }],
  'Mutation.createFolder': [{ query: 'mutation { createFolder(input: { name: "Launch" }) { folder { id } } }' }],
  'Mutation.createService': [{ query: 'mutation { createService(input: { name: "Channel", provider: YOUTUBE }) { service { id } } }' }],
  'Mutation.createIdentityProvider': [
    {
      query: 'mutation ($input: CreateIdentityProviderInput!) { createIdentityProvider(input: $input) { identityProvider { id } } }',
      variables: {
        input: {
          name: 'Okta',
          company: 'OKTA',
          type: 'SAML2',
          certificate: CERTIFICATE,
          entityId: 'urn:vms',
          signinUrl: 'https://okta.example/sso',
        },
      },
    },
  ],
  'Mutation.updateCategory': [{ query: 'mutation { updateCategory(input: { id: "cat_001", name: "Tutorials" }) { category { id } } }' }],
  'Mutation.updateHotspot': [
    { query: 'mutation { updateHotspot(input: { videoId: "vid_001", id: "hs_002", name: "Shop" }) { hotspot { id } } }' },
    // Refused by the upstream (no such hotspot): one call all the same.
    { query: 'mutation { updateHotspot(input: { videoId: "vid_001", id: "hs_999", name: "x" }) { hotspot { id } } }' },
  ],
  'Mutation.updateUser': [{ query: 'mutation { updateUser(input: { id: "usr_viewer", role: UPLOADER }) { user { id } } }' }],
};

interface CostedAnswer {
  data?: unknown;
  errors?: Array<{ message: string; extensions?: Record<string, unknown> }>;
  extensions?: { cost?: { estimatedCalls: number; actualCalls: number } };
}

async function costed(gateway: TestGateway, body: unknown, headers: Record<string, string> = SANDBOX_AUTH): Promise<CostedAnswer> {
  const response = await fetch(gateway.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-cost': '1', ...headers },
    body: JSON.stringify(body),
  });
  return (await response.json()) as CostedAnswer;
}

describe('the estimate of an operation’s upstream calls', () => {
  it('runs every root field of the schema in this test', () => {
    const fields = [schema.getQueryType(), schema.getMutationType()].flatMap((type) =>
      Object.keys(type!.getFields()).map((field) => `${type!.name}.${field}`),
    );
    expect(fields.toSorted()).toEqual(Object.keys(ROOT_FIELD_OPERATIONS).toSorted());
  });

  it('is never below the calls each root field makes, against the sandbox', async ({ gateway }) => {
    for (const [field, operations] of Object.entries(ROOT_FIELD_OPERATIONS)) {
      for (const operation of operations) {
        const { extensions } = await costed(gateway, operation);
        const { estimatedCalls, actualCalls } = extensions!.cost!;
        expect([field, estimatedCalls >= actualCalls, actualCalls > 0 || operation.query.includes('first: 0')]).toEqual([
          field,
          true,
          true,
        ]);
      }
    }
  });

  it('is never below the calls apiKeys makes, for any first and any cursor it issued, and never above its most', async ({ gateway }) => {
    // Every cursor of the sandbox's keys, as pages of one key hand them out: each a place in an upstream page.
    const cursors: string[] = [];
    let after: string | null = null;
    do {
      const { data } = await costed(gateway, {
        query: 'query ($after: String) { apiKeys(first: 1, after: $after) { pageInfo { hasNextPage endCursor } } }',
        variables: { after },
      });
      const { pageInfo } = (data as { apiKeys: { pageInfo: { hasNextPage: boolean; endCursor: string | null } } }).apiKeys;
      if (pageInfo.endCursor) cursors.push(pageInfo.endCursor);
      after = pageInfo.hasNextPage ? pageInfo.endCursor : null;
    } while (after !== null);
    expect(cursors.length).toBeGreaterThan(50);
    const most = mostUpstreamCalls(
      schema,
      parse('query ($first: Int, $after: String) { apiKeys(first: $first, after: $after) { nodes { id } } }'),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: MAX_FIRST }),
        fc.option(fc.constantFrom(...cursors), { nil: null }),
        async (first, cursor) => {
          const variables = { first, after: cursor };
          const query = 'query ($first: Int, $after: String) { apiKeys(first: $first, after: $after) { nodes { id } } }';
          const { extensions, errors } = await costed(gateway, { query, variables });
          const { estimatedCalls, actualCalls } = extensions!.cost!;
          expect({ variables, errors, estimateCovers: estimatedCalls >= actualCalls, withinMost: estimatedCalls <= most }).toEqual({
            variables,
            errors: undefined,
            estimateCovers: true,
            withinMost: true,
          });
        },
      ),
      { numRuns: 150 },
    );
  });

  it('counts identical reads once, as they are sent once, and fields kept out by @skip not at all', () => {
    const estimate = (query: string, variables = {}) => estimateUpstreamCalls(schema, parse(query), variables, undefined).calls;
    expect(estimate('{ a: apiKeys(first: 60) { nodes { id } } b: apiKeys(first: 60) { nodes { id } } }')).toBe(3);
    expect(estimate('{ a: apiKeys(first: 60) { nodes { id } } b: apiKeys(first: 61) { nodes { id } } }')).toBe(6);
    expect(estimate('query ($no: Boolean!) { apiKeys @skip(if: $no) { nodes { id } } }', { no: true })).toBe(0);
    expect(estimate('{ __schema { queryType { name } } __typename }')).toBe(0);
  });
});

describe('extensions.cost', () => {
  test('is on every answer outside production: a refusal, a batch per operation, the last part of a stream', async ({ start }) => {
    const upstream = await start.upstream(apiKeyList(60));
    const gateway = await start.gateway({ upstreamUrl: new URL(upstream.url), costShown: 'always' });
    const ask = (body: unknown, headers: Record<string, string> = {}) =>
      fetch(gateway.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...AUTH, ...headers },
        body: JSON.stringify(body),
      });
    expect(await (await ask({ query: '{ apiKeys(first: 60) { nodes { id } } }' })).json()).toMatchObject({
      extensions: { cost: { estimatedCalls: 3, actualCalls: 3 } },
    });
    expect(await (await ask({ query: '{ nothing }' })).json()).toMatchObject({
      extensions: { cost: { estimatedCalls: 0, actualCalls: 0 } },
    });
    const batch = (await (
      await ask([{ query: '{ apiKeys(first: 30) { nodes { id } } }' }, { query: '{ __typename }' }])
    ).json()) as CostedAnswer[];
    expect(batch.map((answer) => answer.extensions?.cost)).toEqual([
      { estimatedCalls: 2, actualCalls: 2 },
      { estimatedCalls: 0, actualCalls: 0 },
    ]);
    const streamed = await ask(
      { query: '{ apiKeys(first: 60) { edges @stream(initialCount: 1) { node { id } } } }' },
      { accept: 'multipart/mixed' },
    );
    const text = await streamed.text();
    const parts = [...text.matchAll(/\r\n\r\n(\{.*\})\r\n/g)].map(
      ([, json]) => JSON.parse(json!) as { hasNext: boolean; extensions?: unknown },
    );
    expect(parts.length).toBeGreaterThan(1);
    expect(parts.slice(0, -1).map((part) => part.extensions)).toEqual(parts.slice(0, -1).map(() => undefined));
    expect(parts.at(-1)).toMatchObject({ hasNext: false, extensions: { cost: { estimatedCalls: 3, actualCalls: 3 } } });
  });

  test('in production is only on an answer to a request that asks: X-Cost: 1, or the upstream view with its key', async ({ start }) => {
    const upstream = await start.upstream(apiKeyList(60));
    const gateway = await start.gateway({ upstreamUrl: new URL(upstream.url), production: true, debugUpstreamKey: 'a-key-of-ours-1234' });
    const ask = async (headers: Record<string, string>) => {
      const response = await fetch(gateway.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...AUTH, ...headers },
        body: JSON.stringify({ query: '{ apiKeys(first: 30) { nodes { id } } }' }),
      });
      return ((await response.json()) as CostedAnswer).extensions?.cost;
    };
    expect(await ask({})).toBeUndefined();
    expect(await ask({ 'x-cost': 'yes' })).toBeUndefined();
    expect(await ask({ 'x-debug-upstream': '1' })).toBeUndefined();
    expect(await ask({ 'x-cost': '1' })).toEqual({ estimatedCalls: 2, actualCalls: 2 });
    expect(await ask({ 'x-debug-upstream': '1; key=a-key-of-ours-1234' })).toEqual({ estimatedCalls: 2, actualCalls: 2 });
  });

  test('a dry run of a query answers its estimate and calls nothing', async ({ start }) => {
    const upstream = await start.upstream(apiKeyList(100));
    const gateway = await start.gateway({ upstreamUrl: new URL(upstream.url) });
    const answer = await costed(gateway, { query: '{ apiKeys(first: 100) { nodes { id } } }' }, { ...AUTH, 'x-debug-upstream': 'dry-run' });
    expect(answer).toEqual({
      errors: [
        {
          message: 'Dry run: the reads were not sent; they would have made 4 upstream calls.',
          extensions: { code: 'DRY_RUN', estimatedCalls: 4 },
        },
      ],
      extensions: { upstream: { calls: [] }, cost: { estimatedCalls: 4, actualCalls: 0 } },
    });
    expect(upstream.requests).toEqual([]);
  });

  test('the log line carries the estimate beside the calls made', async ({ start }) => {
    const logs = captureLogs('info');
    const upstream = await start.upstream(apiKeyList(30));
    const gateway = await start.gateway({ upstreamUrl: new URL(upstream.url), logger: logs.logger });
    await gateway.graphql('{ apiKeys(first: 100) { nodes { id } } }', { headers: AUTH });
    expect(logs.lines('graphql request').at(-1)).toMatchObject({ upstreamCalls: 2, estimatedCalls: 4 });
  });
});
